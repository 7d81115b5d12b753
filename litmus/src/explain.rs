//! Explaining an outcome of a litmus test: an allowed execution that produces it, or, when the
//! model forbids it, each distinct violation among the candidates that would produce it — the
//! axiom, the shortest cycle, each edge in words pointing at the litmus lines, why pairs are or
//! are not morally strong, and the chain of steps behind each causality edge.

pub mod race;

use std::fmt::Write as _;

use models::explain::{cause_chain, ms_reason, EdgeKind};
use models::ptx::{Choice, Skeleton, Statics, Violation};
use models::Next;

use emu::event::{Ending, EvKind};

use crate::ast::{CmpOp, Expr, Term, Test};
use crate::run::{
    eval, executions, fair, prepare, run, states_of, thread_paths, Focus, Judged, Prepared, Report,
    RunError, RunOptions,
};

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

impl Witness {
    /// Keeps a judged candidate.
    fn of(j: &Judged<'_>) -> Witness {
        Witness {
            skeleton: j.skeleton.clone(),
            choice: j.choice.clone(),
            verdict: j.verdict.clone(),
        }
    }
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
    /// Whether the candidates were built by steering the enumeration towards the outcome
    /// (none of the ordinary enumeration produces it).
    pub steered: bool,
    /// When no execution runs to completion: a consistent one that hangs.
    pub hang: Option<Hung>,
    /// When there is nothing to show (no candidate produces the outcome, no hang): why.
    pub unproduced: Option<Unproduced>,
    /// The whole test's results.
    pub report: Report,
}

/// Explains `outcome` (default: the test's condition) under the options' model.
///
/// When no candidate of the ordinary enumeration produces the outcome, the enumeration is
/// steered towards it (its values enter every value domain, its final values are required of
/// the coherence order), so that candidates relying on values out of thin air or on a
/// coherence order against causality are built and their violations shown. When even then none
/// produces it because no execution runs to completion, a hanging execution is shown instead.
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
    let mut p = prepare(&t2)?;
    let mut safety = *ro;
    safety.liveness = false;
    let mut found = search(&p, &safety, &outcome)?;
    let completes = found.candidates > 0;
    let mut steered = false;
    if found.producing == 0 {
        let focus = focus_of(&p, &outcome);
        if focus != Focus::default() {
            p.focus = focus;
            found = search(&p, &safety, &outcome)?;
            steered = true;
        }
    }
    let hang = if found.producing == 0 && !completes {
        find_hang(&p, ro)?
    } else {
        None
    };
    let unproduced = if found.producing > 0 || hang.is_some() {
        None
    } else if !completes {
        Some(Unproduced::NoCompleteExecution)
    } else {
        Some(Unproduced::Unreachable(unreachable_terms(
            &p, &outcome, ro,
        )?))
    };
    Ok(Explanation {
        prepared: p,
        options: *ro,
        outcome,
        allowed: found.allowed,
        forbidden: found.forbidden,
        producing: found.producing,
        steered,
        hang,
        unproduced,
        report,
    })
}

/// Why no execution, not even a forbidden candidate, produces an outcome (and no hang is
/// shown either).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unproduced {
    /// No execution runs to completion without going round a loop again (the corpus counts
    /// only executions whose loops exit on the first try), and none hangs either: every
    /// execution retries, and fairness lets each retry eventually succeed.
    NoCompleteExecution,
    /// Executions complete, but no combination of the threads' paths computes the outcome's
    /// values. Each entry names one value of the outcome that no path can end with.
    Unreachable(Vec<String>),
}

/// The outcome's pinned values (top-level `==` with a constant) that no complete path of the
/// ordinary run ends with: registers no path leaves with that value, locations no write (nor
/// the initial state) gives that value.
fn unreachable_terms(
    p: &Prepared,
    outcome: &Expr,
    ro: &RunOptions,
) -> Result<Vec<String>, RunError> {
    let mut plain = p.clone();
    plain.focus = Focus::default();
    let paths = thread_paths(&plain, false, ro.limits)?;
    let mut pinned = Vec::new();
    conjuncts(outcome, &mut pinned);
    let mut out = Vec::new();
    for (term, c) in pinned {
        match term {
            Term::Reg(t, r) => {
                let t = *t as usize;
                let Some(id) = p.threads.get(t).and_then(|l| l.regs.get(r)) else {
                    continue;
                };
                let ends = paths[t]
                    .iter()
                    .filter(|tr| tr.ending == Ending::Done)
                    .any(|tr| tr.regs.get(id.index()).copied().unwrap_or(0) == c);
                if !ends {
                    out.push(format!("no path of P{t} ends with {r} == {c} (its reads can only return values some write of the test writes)"));
                }
            }
            Term::Loc(name) => {
                let Some(k) = p.locs.get(name) else { continue };
                let ph = p.phys[k as usize];
                let written = p.init[k as usize] == c
                    || paths.iter().flatten().any(|tr| {
                        tr.events.iter().any(|e| {
                            matches!(e.kind, EvKind::Write { loc, value } if p.phys[loc as usize] == ph && value == c)
                        })
                    });
                if !written {
                    out.push(format!("no write gives {name} the value {c}"));
                }
            }
            Term::Const(_) => {}
        }
    }
    Ok(out)
}

/// The `term == constant` comparisons of an expression's top-level conjunction.
fn conjuncts<'a>(e: &'a Expr, out: &mut Vec<(&'a Term, i64)>) {
    match e {
        Expr::And(a, b) => {
            conjuncts(a, out);
            conjuncts(b, out);
        }
        Expr::Cmp(a, CmpOp::Eq, b) => match (a, b) {
            (Term::Const(c), t) | (t, Term::Const(c)) if !matches!(t, Term::Const(_)) => {
                out.push((t, *c));
            }
            _ => {}
        },
        _ => {}
    }
}

/// What one search for candidates producing an outcome found.
struct Found {
    allowed: Option<Witness>,
    forbidden: Vec<Witness>,
    producing: u64,
    candidates: u64,
}

fn search(p: &Prepared, ro: &RunOptions, outcome: &Expr) -> Result<Found, RunError> {
    let mut allowed = None;
    let mut forbidden: Vec<Witness> = Vec::new();
    let mut producing = 0u64;
    let counts = executions(p, ro, &mut |j| {
        let sat = states_of(p, j).iter().any(|s| eval(p, outcome, s));
        if !sat {
            return Next::Continue;
        }
        producing += 1;
        match j.verdict {
            Ok(()) => {
                allowed = Some(Witness::of(j));
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
                    forbidden.push(Witness::of(j));
                }
                Next::Continue
            }
        }
    })?;
    Ok(Found {
        allowed,
        forbidden,
        producing,
        candidates: counts.candidates,
    })
}

/// The focus that steers the enumeration towards `outcome`: every constant it compares with
/// enters the value domains, and each location it pins with `==` in its top-level conjunction
/// must end with that value.
fn focus_of(p: &Prepared, outcome: &Expr) -> Focus {
    let mut pinned = Vec::new();
    conjuncts(outcome, &mut pinned);
    let mut finals: Vec<(u32, i64)> = Vec::new();
    for (term, c) in pinned {
        let Term::Loc(l) = term else { continue };
        if let Some(k) = p.locs.get(l) {
            let ph = p.phys[k as usize];
            if !finals.iter().any(|&(x, _)| x == ph) {
                finals.push((ph, c));
            }
        }
    }
    Focus {
        values: outcome.constants(),
        finals,
    }
}

/// A consistent, fair execution in which some thread never finishes (asked for when no
/// execution of the test runs to completion).
fn find_hang(p: &Prepared, ro: &RunOptions) -> Result<Option<Hung>, RunError> {
    let mut live = *ro;
    live.liveness = true;
    let mut hung = None;
    executions(p, &live, &mut |j| {
        if j.verdict.is_err() || !fair(j) {
            return Next::Continue;
        }
        let threads = j
            .paths
            .iter()
            .enumerate()
            .map(|(t, tr)| match tr.ending {
                Ending::Done => format!("P{t} finishes"),
                Ending::Spin => format!("P{t} spins forever, never reading a newer value"),
                Ending::Blocked => {
                    let at = tr
                        .blocked_at
                        .map(|(i, _)| line_of(p, t, i))
                        .map_or(String::new(), |l| format!(" ({l})"));
                    format!("P{t} waits forever at a barrier{at}: the threads it waits for never all arrive")
                }
            })
            .collect();
        hung = Some(Hung {
            witness: Witness::of(j),
            threads,
        });
        Next::Stop
    })?;
    Ok(hung)
}

/// `line 3: bar.cta.sync 1, 1, 4` for an IR instruction of a thread (its IR text when the
/// litmus line is unknown).
fn line_of(p: &Prepared, t: usize, instr: usize) -> String {
    source_line(p, t, instr)
        .unwrap_or_else(|| p.threads[t].text.get(instr).cloned().unwrap_or_default())
}

/// An execution in which some thread never finishes.
#[derive(Clone, Debug)]
pub struct Hung {
    /// The execution (allowed by the model).
    pub witness: Witness,
    /// What each thread does, in words.
    pub threads: Vec<String>,
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
        Some(t) => match source_line(p, t as usize, ev.instr as usize) {
            Some(line) => format!("P{t} {line}"),
            None => format!("P{t}: {}", ev.text),
        },
    }
}

/// `line 8: ld.weak r1, x`: the litmus line an IR instruction of a thread comes from.
fn source_line(p: &Prepared, t: usize, instr: usize) -> Option<String> {
    let origin = p.threads[t].origin.get(instr).copied().unwrap_or(0);
    let (inst, line) = p.test.code[t].get(origin)?;
    Some(format!("line {line}: {inst}"))
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
