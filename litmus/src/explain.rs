//! Explaining an outcome of a litmus test: an allowed execution that produces it, or, when the
//! model forbids it, each distinct violation among the candidates that would produce it — the
//! axiom, the shortest cycle, each edge in words pointing at the litmus lines, why pairs are or
//! are not morally strong, and the chain of steps behind each causality edge.

use std::fmt::Write as _;

use models::explain::{cause_chain, ms_reason, EdgeKind};
use models::ptx::{Choice, Skeleton, Statics, Violation};
use models::Next;

use crate::ast::{Expr, Term, Test};
use crate::run::{executions, prepare, run, states_of, Prepared, Report, RunError, RunOptions};

/// One candidate execution kept for explanation.
#[derive(Clone, Debug)]
pub struct Witness {
    /// Its events and fixed relations.
    pub skeleton: Skeleton,
    /// Its choices.
    pub choice: Choice,
    /// Its verdict.
    pub verdict: Result<(), Violation>,
}

/// The explanation of one outcome.
pub struct Explanation {
    /// The prepared test.
    pub prepared: Prepared,
    /// The run options.
    pub options: RunOptions,
    /// The outcome explained.
    pub outcome: Expr,
    /// An allowed execution producing it, if any.
    pub allowed: Option<Witness>,
    /// Candidates producing it that the model forbids, one per distinct violation (at most 4).
    pub forbidden: Vec<Witness>,
    /// How many candidates produce it.
    pub producing: u64,
    /// The whole test's results.
    pub report: Report,
}

/// Explains `outcome` (default: the test's condition) under the options' model.
///
/// # Errors
/// As [`run`].
pub fn explain(
    test: &Test,
    ro: &RunOptions,
    outcome: Option<Expr>,
) -> Result<Explanation, RunError> {
    let outcome = outcome.unwrap_or_else(|| test.condition.clone());
    let report = run(test, ro)?;
    let mut t2 = test.clone();
    for term in outcome.terms() {
        if !t2.observed.contains(&term) {
            t2.observed.push(term);
        }
    }
    let p = prepare(&t2)?;
    let mut allowed = None;
    let mut forbidden: Vec<Witness> = Vec::new();
    let mut producing = 0u64;
    let mut safety = *ro;
    safety.liveness = false;
    executions(&p, &safety, &mut |j| {
        let sat = states_of(&p, j).iter().any(|s| {
            outcome.eval(&|t: &Term| match t {
                Term::Const(c) => *c,
                _ => p.terms.iter().position(|x| x == t).map_or(0, |k| s[k]),
            })
        });
        if !sat {
            return Next::Continue;
        }
        producing += 1;
        let w = || Witness {
            skeleton: j.skeleton.clone(),
            choice: j.choice.clone(),
            verdict: j.verdict.clone(),
        };
        match j.verdict {
            Ok(()) => {
                allowed = Some(w());
                Next::Stop
            }
            Err(v) => {
                let dup = forbidden.iter().any(|f| match &f.verdict {
                    Err(o) => {
                        o.axiom == v.axiom
                            && texts(&f.skeleton, &o.cycle) == texts(j.skeleton, &v.cycle)
                    }
                    Ok(()) => false,
                });
                if !dup && forbidden.len() < 4 {
                    forbidden.push(w());
                }
                Next::Continue
            }
        }
    })?;
    Ok(Explanation {
        prepared: p,
        options: *ro,
        outcome,
        allowed,
        forbidden,
        producing,
        report,
    })
}

fn texts(sk: &Skeleton, cycle: &[usize]) -> Vec<(Option<u32>, u32)> {
    cycle
        .iter()
        .map(|&e| (sk.events[e].thread, sk.events[e].instr))
        .collect()
}

/// Short labels of the events: `(1)`, `(2)`, … for thread events, `(x0)` for initial writes.
pub fn labels(sk: &Skeleton) -> Vec<String> {
    let mut k = 0;
    sk.events
        .iter()
        .map(|e| match e.thread {
            None => format!("({}0)", e.text.split(' ').next().unwrap_or("?")),
            Some(_) => {
                k += 1;
                format!("({k})")
            }
        })
        .collect()
}

/// The litmus line and instruction of an event, e.g. `P1 line 8: ld.weak r1, x`.
pub fn describe(sk: &Skeleton, p: &Prepared, e: usize) -> String {
    let ev = &sk.events[e];
    match ev.thread {
        None => format!("the initial write {}", ev.text),
        Some(t) => {
            let t = t as usize;
            let origin = p.threads[t]
                .origin
                .get(ev.instr as usize)
                .copied()
                .unwrap_or(0);
            match p.test.code[t].get(origin) {
                Some((inst, line)) => format!("P{t} line {line}: {inst}"),
                None => format!("P{t}: {}", ev.text),
            }
        }
    }
}

/// What an event does with memory, e.g. `reads x = 1`.
pub fn effect(sk: &Skeleton, p: &Prepared, e: usize) -> String {
    let ev = &sk.events[e];
    let name = ev
        .loc
        .and_then(|l| p.phys.iter().position(|&x| x == l))
        .map_or("?".to_string(), |k| p.locs.names[k].clone());
    let vname = ev.vloc.map_or(name.clone(), |v| {
        p.locs
            .names
            .get(v as usize)
            .cloned()
            .unwrap_or(name.clone())
    });
    match ev.kind {
        models::EventKind::Read => format!("reads {vname} = {}", ev.value),
        models::EventKind::Write => format!("writes {vname} = {}", ev.value),
        models::EventKind::Fence => "fence".to_string(),
        models::EventKind::Barrier => "barrier".to_string(),
    }
}

impl Explanation {
    /// The statics of a witness under this explanation's model.
    pub fn statics(&self, w: &Witness) -> Statics {
        Statics::new(&w.skeleton, self.options.model, self.options.opts)
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
        if self.forbidden.is_empty() {
            let _ = writeln!(
                s,
                "\nNo candidate execution produces it. Candidates are built with the smallest coherence order the coherence axiom allows (causality between writes to one location fixes their order), so an outcome whose final values would need a write ordered against causality, or values no write provides, has no candidate at all: it is forbidden by coherence, or impossible."
            );
            return s;
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
        let _ = writeln!(s, "  reads-from: {}", pairs(&w.choice.rf));
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
