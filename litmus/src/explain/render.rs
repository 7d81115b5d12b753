//! How an explanation is shown: the picture chosen, and the text of the allowed execution,
//! each violation (axiom, cycle, edges in words, morally-strong reasons, cause chains) and
//! each hang.

use super::*;

impl Explanation {
    /// The execution a single picture shows: the allowed one, else the first forbidden
    /// candidate, else the hanging execution.
    pub fn pictured(&self) -> Option<&Witness> {
        self.allowed
            .as_ref()
            .or(self.forbidden.first())
            .or(self.hang.as_ref().map(|h| &h.witness))
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
        let p = &self.prepared;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Test {}, model {}",
            p.test.name,
            self.options.model.name()
        );
        let verdict = if self.allowed.is_some() {
            "ALLOWED"
        } else {
            "FORBIDDEN"
        };
        let _ = writeln!(s, "Outcome {}: {verdict}", self.outcome);
        let _ = writeln!(s, "({} candidate execution(s) produce it; the test has {} allowed execution(s) of {} candidates)", self.producing, self.report.allowed, self.report.candidates);
        if let Some(w) = &self.allowed {
            let _ = writeln!(s, "\nAn allowed execution that produces it:");
            s.push_str(&self.events_text(w));
            s.push_str(&self.edges_text(w));
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
            let _ = writeln!(s, "\nCandidate {} that would produce it:", k + 1);
            s.push_str(&self.events_text(w));
            s.push_str(&self.edges_text(w));
            if let Err(v) = &w.verdict {
                s.push_str(&self.violation_text(w, v));
            }
        }
        s
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
        let co: Vec<(usize, usize)> = w
            .choice
            .co
            .pairs()
            .into_iter()
            .filter(|&(a, _)| !w.skeleton.events[a].is_init())
            .collect();
        let co_s: Vec<String> = co
            .iter()
            .map(|&(a, b)| format!("{}→{}", l[a], l[b]))
            .collect();
        let _ = writeln!(
            s,
            "  coherence (beyond the initial writes): {}",
            if co_s.is_empty() {
                "none".to_string()
            } else {
                co_s.join(", ")
            }
        );
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
