//! How an explanation is shown: the executions to show (allowed ones, forbidden candidates,
//! a hang), the picture chosen, and the text of each: its events, reads-from, coherence as an
//! order per location, the Fence-SC order once, then either why no axiom forbids it or the
//! violation (axiom, cycle, edges in words, morally-strong reasons, cause chains).

use super::*;

/// What kind of execution is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShownKind {
    /// Allowed by the model.
    Allowed,
    /// A candidate the model forbids.
    Forbidden,
    /// A consistent execution that never finishes.
    Hang,
}

impl ShownKind {
    /// `allowed`, `forbidden` or `hang`.
    pub fn name(self) -> &'static str {
        match self {
            ShownKind::Allowed => "allowed",
            ShownKind::Forbidden => "forbidden",
            ShownKind::Hang => "hang",
        }
    }
}

/// One execution an explanation shows, with its caption.
pub struct Shown<'a> {
    /// `An allowed execution with …`, `Candidate 2 with …: forbidden by causality`.
    pub caption: String,
    /// Allowed, forbidden or hanging.
    pub kind: ShownKind,
    /// The execution.
    pub witness: &'a Witness,
}

impl Explanation {
    /// The execution a single picture shows: the allowed one, else the first forbidden
    /// candidate, else the hanging execution.
    pub fn pictured(&self) -> Option<&Witness> {
        self.allowed
            .as_ref()
            .or(self.forbidden.first())
            .or(self.hang.as_ref().map(|h| &h.witness))
    }

    /// Every execution worth showing, in order: the allowed ones producing the outcome (when
    /// there are any), else the forbidden candidates, else the hanging execution.
    pub fn shown(&self) -> Vec<Shown<'_>> {
        let mut out = Vec::new();
        let allowed: Vec<&Witness> = self.allowed.iter().chain(&self.also_allowed).collect();
        let n = allowed.len();
        for (k, w) in allowed.into_iter().enumerate() {
            let caption = if n == 1 {
                format!("An allowed execution with {}", self.outcome)
            } else {
                format!(
                    "Allowed execution {} of {n} shown with {}",
                    k + 1,
                    self.outcome
                )
            };
            out.push(Shown {
                caption,
                kind: ShownKind::Allowed,
                witness: w,
            });
        }
        if n > 0 {
            return out;
        }
        for (k, w) in self.forbidden.iter().enumerate() {
            let axiom = w
                .verdict
                .as_ref()
                .err()
                .map_or("?".to_string(), |v| v.axiom.to_string());
            out.push(Shown {
                caption: format!(
                    "Candidate {} with {}: forbidden by {axiom}",
                    k + 1,
                    self.outcome
                ),
                kind: ShownKind::Forbidden,
                witness: w,
            });
        }
        if let Some(h) = &self.hang {
            out.push(Shown {
                caption: "No execution completes: a consistent execution that hangs".to_string(),
                kind: ShownKind::Hang,
                witness: &h.witness,
            });
        }
        out
    }

    /// `allowed`, `forbidden`, or `unproduced` (no candidate produces the outcome).
    pub fn verdict_word(&self) -> &'static str {
        if self.allowed.is_some() {
            "allowed"
        } else if self.forbidden.is_empty() && self.hang.is_none() {
            "unproduced"
        } else {
            "forbidden"
        }
    }

    /// The first lines of [`Explanation::text`]: test, model, outcome, verdict and counts.
    pub fn summary(&self) -> String {
        let p = &self.prepared;
        let verdict = if self.allowed.is_some() {
            "ALLOWED"
        } else {
            "FORBIDDEN"
        };
        let shown = if self.also_allowed.is_empty() {
            String::new()
        } else {
            format!(
                "; {} of the allowed ones are shown",
                1 + self.also_allowed.len()
            )
        };
        format!(
            "Test {}, model {}\nOutcome {}: {verdict}\n({} candidate execution(s) produce it{shown}; the test has {} allowed execution(s) of {} candidates)\n",
            p.test.name,
            self.options.model.name(),
            self.outcome,
            self.producing,
            self.report.allowed,
            self.report.candidates
        )
    }

    /// One execution in words: its events and relations, then why it is allowed (axiom by
    /// axiom) or the violation that forbids it.
    pub fn witness_text(&self, w: &Witness) -> String {
        let mut s = self.events_text(w);
        s.push_str(&self.edges_text(w));
        match &w.verdict {
            Ok(()) => s.push_str(&self.allowed_reasons(w)),
            Err(v) => {
                s.push_str(&self.violation_text(w, v));
                if self.options.model == Model::Sc {
                    s.push_str(&self.sc_contrast(v));
                }
            }
        }
        s
    }

    /// The statics of a witness under this explanation's model.
    pub fn statics(&self, w: &Witness) -> Statics {
        Statics::new(&w.skeleton, self.options.model, self.options.opts)
    }

    /// Each forbidden candidate's violation in one line: the axiom and its cycle, every event
    /// described (`Coherence: (1) W x=1 -co-> (3) ... -> (1)`).
    pub fn violations(&self) -> Vec<String> {
        self.forbidden
            .iter()
            .filter_map(|w| {
                let v = w.verdict.as_ref().err()?;
                let l = labels(&w.skeleton);
                let ev =
                    |e: usize| format!("{} {}", l[e], describe(&w.skeleton, &self.prepared, e));
                let hops: Vec<String> = (0..v.cycle.len())
                    .map(|i| format!("{} -{}->", ev(v.cycle[i]), v.edges[i]))
                    .collect();
                Some(format!("{}: {} {}", v.axiom, hops.join(" "), l[v.cycle[0]]))
            })
            .collect()
    }

    /// The explanation in words.
    pub fn text(&self) -> String {
        let mut s = self.summary();
        if let Some(w) = &self.allowed {
            let _ = writeln!(s, "\nAn allowed execution that produces it:");
            s.push_str(&self.witness_text(w));
            return s;
        }
        if let Some(h) = &self.hang {
            let _ = writeln!(
                s,
                "\nNo execution of this test runs to completion, so there is no final state to produce it. A consistent execution that hangs:"
            );
            for t in &h.threads {
                let _ = writeln!(s, "  {t}");
            }
            s.push_str(&self.events_text(&h.witness));
            s.push_str(&self.edges_text(&h.witness));
            return s;
        }
        match &self.unproduced {
            Some(Unproduced::NoCompleteExecution) => {
                let _ = writeln!(
                    s,
                    "\nNo execution runs to completion with every loop exiting on its first try (the only executions whose final states count), and none hangs forever: some thread must go round a loop again, and a fair scheduler lets the retry succeed. The outcome has no final state; ask with --liveness about progress."
                );
                return s;
            }
            Some(Unproduced::Unreachable(why)) => {
                let _ = writeln!(
                    s,
                    "\nNo candidate execution produces it under any model, not even with the outcome's values offered to every read and its final values required of the coherence order:"
                );
                if why.is_empty() {
                    let _ = writeln!(
                        s,
                        "  each value alone can occur, but no combination of the threads' paths computes them together."
                    );
                }
                for w in why {
                    let _ = writeln!(s, "  {w};");
                }
                return s;
            }
            None => {}
        }
        if self.steered {
            let _ = writeln!(
                s,
                "\nThe ordinary enumeration builds no candidate with this outcome: it offers reads only values some write can produce, and orders writes of one location as causality does. Built towards the outcome (its values offered to every read, its final values required of the coherence order), these candidates produce it, and each breaks an axiom:"
            );
        }
        for (k, w) in self.forbidden.iter().enumerate() {
            let twin = self.forbidden[..k].iter().position(|o| {
                o.choice.rf == w.choice.rf
                    && o.choice.co == w.choice.co
                    && o.choice.syncbar == w.choice.syncbar
            });
            match twin {
                Some(j) if sc_differs(&self.forbidden[j], w) => {
                    let _ = writeln!(
                        s,
                        "\nCandidate {} that would produce it differs from candidate {} only in the Fence-SC order: morally strong fence.sc must be ordered one way or the other, and this order breaks an axiom too.",
                        k + 1,
                        j + 1
                    );
                    s.push_str(&self.sc_order_text(w));
                }
                _ => {
                    let _ = writeln!(s, "\nCandidate {} that would produce it:", k + 1);
                    s.push_str(&self.events_text(w));
                    s.push_str(&self.edges_text(w));
                }
            }
            if let Err(v) = &w.verdict {
                s.push_str(&self.violation_text(w, v));
                if self.options.model == Model::Sc {
                    s.push_str(&self.sc_contrast(v));
                }
            }
        }
        s
    }

    /// The Fence-SC order of a candidate in one line (empty when it has none).
    fn sc_order_text(&self, w: &Witness) -> String {
        let l = labels(&w.skeleton);
        let sc = reduce(&w.choice.sc);
        if sc.is_empty() {
            return String::new();
        }
        let pairs: Vec<String> = sc
            .pairs()
            .into_iter()
            .map(|(a, b)| format!("{} → {}", l[a], l[b]))
            .collect();
        format!("  fence-SC order: {}\n", pairs.join(", "))
    }

    /// The coherence order of each location written beyond its initial value, in order:
    /// `x: (x0) → (1) → (5)`; writes it leaves unordered (a race) are grouped in braces.
    fn coherence_text(&self, w: &Witness) -> String {
        let ev = &w.skeleton.events;
        let l = labels(&w.skeleton);
        let co = &w.choice.co;
        let mut locs: Vec<u32> = Vec::new();
        for e in ev
            .iter()
            .filter(|e| e.kind == models::EventKind::Write && !e.is_init())
        {
            if let Some(loc) = e.loc {
                if !locs.contains(&loc) {
                    locs.push(loc);
                }
            }
        }
        let mut parts = Vec::new();
        for loc in locs {
            let name = self
                .prepared
                .phys
                .iter()
                .position(|&x| x == loc)
                .map_or("?".to_string(), |k| self.prepared.locs.names[k].clone());
            let mut left: Vec<usize> = (0..ev.len())
                .filter(|&e| ev[e].kind == models::EventKind::Write && ev[e].loc == Some(loc))
                .collect();
            let mut layers: Vec<String> = Vec::new();
            let mut racy = false;
            while !left.is_empty() {
                let first: Vec<usize> = left
                    .iter()
                    .copied()
                    .filter(|&b| !left.iter().any(|&a| a != b && co.has(a, b)))
                    .collect();
                if first.is_empty() {
                    break;
                }
                left.retain(|e| !first.contains(e));
                if first.len() == 1 {
                    layers.push(l[first[0]].clone());
                } else {
                    racy = true;
                    let names: Vec<&str> = first.iter().map(|&e| l[e].as_str()).collect();
                    layers.push(format!("{{{}}}", names.join(", ")));
                }
            }
            let mut part = format!("{name}: {}", layers.join(" → "));
            if racy {
                part.push_str(" (writes in braces are left unordered: they race)");
            }
            parts.push(part);
        }
        if parts.is_empty() {
            return "  coherence: no write beyond the initial values\n".to_string();
        }
        format!("  coherence, per location: {}\n", parts.join("; "))
    }

    fn events_text(&self, w: &Witness) -> String {
        let p = &self.prepared;
        let l = labels(&w.skeleton);
        let mut s = String::from("  events:\n");
        for (e, label) in l.iter().enumerate() {
            if w.skeleton.events[e].is_init() && !w.choice.rf.pairs().iter().any(|&(a, _)| a == e) {
                continue;
            }
            let _ = writeln!(
                s,
                "    {label} {} — {}",
                describe(&w.skeleton, p, e),
                effect(&w.skeleton, p, e)
            );
        }
        s
    }

    fn edges_text(&self, w: &Witness) -> String {
        let l = labels(&w.skeleton);
        let mut s = String::new();
        let pairs = |r: &models::Rel| {
            r.pairs()
                .iter()
                .map(|&(a, b)| format!("{}→{}", l[a], l[b]))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let rf = pairs(&w.choice.rf);
        let _ = writeln!(
            s,
            "  reads-from: {}",
            if rf.is_empty() { "none" } else { &rf }
        );
        s.push_str(&self.coherence_text(w));
        s.push_str(&self.sc_order_text(w));
        let st = self.statics(w);
        let sync = st.sync(&w.choice.rf);
        if !sync.is_empty() {
            let _ = writeln!(s, "  synchronizes-with: {}", pairs(&sync));
        }
        s
    }

    fn violation_text(&self, w: &Witness, v: &Violation) -> String {
        let p = &self.prepared;
        let sk = &w.skeleton;
        let l = labels(sk);
        let st = self.statics(w);
        let mut s = String::new();
        let cyc: Vec<String> = (0..v.cycle.len())
            .map(|i| format!("{} -{}->", l[v.cycle[i]], v.edges[i]))
            .collect();
        let _ = writeln!(
            s,
            "  violates {}: cycle {} {}",
            v.axiom,
            cyc.join(" "),
            l[v.cycle[0]]
        );
        for i in 0..v.cycle.len() {
            let (a, b) = (v.cycle[i], v.cycle[(i + 1) % v.cycle.len()]);
            let (da, db) = (
                format!("{} {}", l[a], describe(sk, p, a)),
                format!("{} {}", l[b], describe(sk, p, b)),
            );
            let line = match v.edges[i].as_str() {
                "rf" => format!("{db} reads the value {da} wrote"),
                "fr" => format!(
                    "{da} reads a value that {db} later overwrites in coherence order (from-reads)"
                ),
                "co" => format!("{da} is coherence-before {db}"),
                "dep" => format!("{db} depends on the value read by {da}"),
                "po-loc" => format!("{da} comes before {db} in program order, at the same address"),
                "po" => format!("{da} comes before {db} in program order"),
                "rmw^-1" => {
                    format!("{da} is the write of the read-modify-write whose read is {db}")
                }
                "cause" => {
                    let mut t = format!("{da} is causally before {db}:");
                    match cause_chain(&st, sk, &w.choice, a, b) {
                        Some(chain) => {
                            let mut cur = a;
                            for (next, kind) in chain {
                                let why = match kind {
                                    EdgeKind::Po => "program order".to_string(),
                                    EdgeKind::SyncWith => {
                                        let (_, r) = ms_reason(&st, &sk.events, cur, next);
                                        format!("synchronizes-with (a release pattern observed by an acquire pattern; morally strong: {r})")
                                    }
                                    EdgeKind::Observation => {
                                        let (_, r) = ms_reason(&st, &sk.events, cur, next);
                                        format!("observation (morally strong reads-from: {r})")
                                    }
                                    EdgeKind::FenceSc => "fence-sc order".to_string(),
                                    EdgeKind::Barrier => "barrier synchronisation".to_string(),
                                    other => other.meaning().to_string(),
                                };
                                let _ = write!(
                                    t,
                                    "\n        {} -{}-> {}: {why}",
                                    l[cur],
                                    kind.name(),
                                    l[next]
                                );
                                cur = next;
                            }
                        }
                        None => t.push_str(" (through the model's causality order)"),
                    }
                    t
                }
                other => format!("{da} -{other}-> {db}"),
            };
            let _ = writeln!(s, "    {line}");
            if matches!(v.edges[i].as_str(), "rf" | "fr" | "co")
                && sk.events[a].thread != sk.events[b].thread
                && !sk.events[a].is_init()
                && !sk.events[b].is_init()
            {
                let (ms, why) = ms_reason(&st, &sk.events, a, b);
                let _ = writeln!(
                    s,
                    "      {} and {} are {}morally strong: {why}",
                    l[a],
                    l[b],
                    if ms { "" } else { "not " }
                );
            }
        }
        s
    }
}

/// Whether two candidates have different Fence-SC orders.
fn sc_differs(a: &Witness, b: &Witness) -> bool {
    a.choice.sc != b.choice.sc
}

/// A relation without the pairs transitivity implies.
fn reduce(r: &models::Rel) -> models::Rel {
    r.minus(&r.seq(r))
}
