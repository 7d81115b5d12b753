//! Explaining an outcome of a litmus test: an allowed execution that produces it, or, when the
//! model forbids it, each distinct violation among the candidates that would produce it — the
//! axiom, the shortest cycle, each edge in words pointing at the litmus lines, why pairs are or
//! are not morally strong, and the chain of steps behind each causality edge.

pub mod race;
mod render;
mod why;

pub use render::{Shown, ShownKind};

use std::fmt::Write as _;

use models::explain::{cause_chain, ms_reason, EdgeKind};
use models::ptx::{Choice, Model, Skeleton, Statics, Violation};
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
    /// Further allowed executions producing it (at most [`MORE_ALLOWED`]), to step through.
    pub also_allowed: Vec<Witness>,
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
    /// Under the SC model, when SC forbids the outcome: the explanation under ptx-v7.5, to
    /// contrast the two (which PTX axiom does not forbid the cycle SC forbids).
    pub contrast: Option<Box<Explanation>>,
}

/// How many allowed executions beyond the first an explanation keeps.
pub const MORE_ALLOWED: usize = 15;

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
    let contrast = if ro.model == Model::Sc && found.allowed.is_empty() && found.producing > 0 {
        let ptx = RunOptions {
            model: Model::PtxV75,
            ..*ro
        };
        Some(Box::new(explain(test, &ptx, Some(outcome.clone()))?))
    } else {
        None
    };
    let mut allowed = found.allowed.into_iter();
    Ok(Explanation {
        prepared: p,
        options: *ro,
        outcome,
        allowed: allowed.next(),
        also_allowed: allowed.collect(),
        forbidden: found.forbidden,
        producing: found.producing,
        steered,
        hang,
        unproduced,
        report,
        contrast,
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
    let start = crate::clock::Started::now();
    let paths =
        thread_paths(&plain, false, ro.path_limits(&start)).map_err(|e| ro.halted(e, &start))?;
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
    /// The first allowed executions found (at most 1 + [`MORE_ALLOWED`]).
    allowed: Vec<Witness>,
    forbidden: Vec<Witness>,
    producing: u64,
    candidates: u64,
}

fn search(p: &Prepared, ro: &RunOptions, outcome: &Expr) -> Result<Found, RunError> {
    let mut allowed: Vec<Witness> = Vec::new();
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
                allowed.push(Witness::of(j));
                if allowed.len() > MORE_ALLOWED {
                    Next::Stop
                } else {
                    Next::Continue
                }
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
