//! The outcomes of a litmus run: the states the allowed executions end in, the counts, the
//! verdict, and the run itself, by the incremental explorer ([`crate::explore`]) or by the
//! reference enumeration of every candidate ([`crate::run::executions`]).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use emu::event::{Ending, Trace};
use models::event::EventKind;
use models::ptx::Model;
use models::{co_maximal, Next};

use crate::ast::{Expr, Quantifier, Term, Test};
use crate::run::{executions, prepare, Engine, Judged, Prepared, RunError, RunOptions};

/// What one state (an assignment of values to the shown terms) looks like in the results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateInfo {
    /// How many allowed executions end in it.
    pub count: u64,
    /// Whether it satisfies the condition.
    pub satisfies: bool,
}

/// A hang found in liveness mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hang {
    /// For each thread: `done`, `spins` or `waits at a barrier`.
    pub threads: Vec<String>,
}

impl Hang {
    /// The hang in which each thread follows its path of `paths`.
    pub fn of(paths: &[&Trace]) -> Hang {
        Hang {
            threads: paths
                .iter()
                .map(|t| match t.ending {
                    Ending::Done => "done".to_string(),
                    Ending::Spin => "spins forever".to_string(),
                    Ending::Blocked => "waits at a barrier forever".to_string(),
                })
                .collect(),
        }
    }
}

/// The result of running a test.
#[derive(Clone, Debug)]
pub struct Report {
    /// The test's name.
    pub name: String,
    /// The model.
    pub model: Model,
    /// The quantifier.
    pub quantifier: Quantifier,
    /// The condition.
    pub condition: Expr,
    /// The terms shown in each state.
    pub terms: Vec<Term>,
    /// Every state of the allowed complete executions.
    pub states: BTreeMap<Vec<i64>, StateInfo>,
    /// Allowed executions (with a choice of final values) satisfying the condition.
    pub positive: u64,
    /// Those not satisfying it.
    pub negative: u64,
    /// Complete executions judged: by the explorer, those it built (after abandoning partial
    /// executions that broke an axiom); by the reference enumeration, every candidate.
    pub candidates: u64,
    /// Partial executions the explorer built (each step of its search; 0 for the reference).
    pub explored: u64,
    /// Of which allowed.
    pub allowed: u64,
    /// Whether the condition as written holds (liveness mode: whether no hang exists).
    pub holds: bool,
    /// Liveness mode: the hang found, if any.
    pub hang: Option<Hang>,
    /// Whether this was a liveness run.
    pub liveness: bool,
    /// Wall time.
    pub time: Duration,
}

/// Final values of the shown terms for one execution: one vector per choice of co-maximal
/// final write of each location.
pub fn states_of(p: &Prepared, j: &Judged<'_>) -> Vec<Vec<i64>> {
    let cm = co_maximal(j.skeleton, &j.choice.co);
    states_from(p, j.paths, &|ph| {
        if let Some(&(_, v)) = p.focus.finals.iter().find(|&&(l, _)| l == ph) {
            // Built to end with this value (even where that order breaks coherence).
            return BTreeSet::from([v]);
        }
        cm.iter()
            .filter(|&&w| j.skeleton.events[w].loc == Some(ph))
            .map(|&w| j.skeleton.events[w].value)
            .collect()
    })
}

/// The states of an execution whose threads took `paths` and whose possible final values of
/// physical location `ph` are `finals(ph)`.
pub(crate) fn states_from(
    p: &Prepared,
    paths: &[&Trace],
    finals: &dyn Fn(u32) -> BTreeSet<i64>,
) -> Vec<Vec<i64>> {
    let mut out = vec![Vec::new()];
    for t in &p.terms {
        let vals: Vec<i64> = match t {
            Term::Const(c) => vec![*c],
            Term::Reg(th, r) => {
                let th = *th as usize;
                let l = &p.threads[th];
                let v = match l.regs.get(r) {
                    Some(id) => paths[th].regs.get(id.index()).copied().unwrap_or(0),
                    None => 0,
                };
                vec![v]
            }
            Term::Loc(name) => {
                let ph = p.locs.get(name).map_or(u32::MAX, |k| p.phys[k as usize]);
                finals(ph).into_iter().collect()
            }
        };
        out = out
            .into_iter()
            .flat_map(|s| {
                vals.iter().map(move |v| {
                    let mut s2 = s.clone();
                    s2.push(*v);
                    s2
                })
            })
            .collect();
    }
    out
}

/// Whether `e` holds in `state` (values of the prepared test's terms).
pub(crate) fn eval(p: &Prepared, e: &Expr, state: &[i64]) -> bool {
    e.eval(&|t: &Term| match t {
        Term::Const(c) => *c,
        _ => p.terms.iter().position(|x| x == t).map_or(0, |k| state[k]),
    })
}

/// Whether, in a candidate where some thread does not finish, every spinning read reads a
/// co-maximal write (fairness).
pub(crate) fn fair(j: &Judged<'_>) -> bool {
    let ev = &j.skeleton.events;
    for (t, tr) in j.paths.iter().enumerate() {
        if tr.ending != Ending::Spin {
            continue;
        }
        for i in tr.spin_start..tr.events.len() {
            let r = j.offsets[t] + i;
            if ev[r].kind != EventKind::Read {
                continue;
            }
            for w in 0..ev.len() {
                if j.choice.rf.has(w, r) && (0..ev.len()).any(|x| j.choice.co.has(w, x)) {
                    return false;
                }
            }
        }
    }
    true
}

/// Runs a test to completion.
///
/// # Errors
/// See [`RunError`].
pub fn run(test: &Test, ro: &RunOptions) -> Result<Report, RunError> {
    run_with(test, ro, None)
}

/// Runs a test to completion, counting into `progress` as it goes (for a progress display).
///
/// # Errors
/// See [`RunError`].
pub fn run_with(
    test: &Test,
    ro: &RunOptions,
    progress: Option<&models::explore::Progress>,
) -> Result<Report, RunError> {
    match ro.engine {
        Engine::Explore => crate::explore::run(test, ro, progress),
        Engine::Enumerate => enumerate_run(test, ro),
    }
}

/// Runs a test with the reference enumeration.
fn enumerate_run(test: &Test, ro: &RunOptions) -> Result<Report, RunError> {
    let start = crate::clock::Started::now();
    let p = prepare(test)?;
    let mut states: BTreeMap<Vec<i64>, StateInfo> = BTreeMap::new();
    let (mut positive, mut negative) = (0u64, 0u64);
    let mut hang = None;
    let counts = executions(&p, ro, &mut |j| {
        if j.verdict.is_err() {
            return Next::Continue;
        }
        if ro.liveness {
            if fair(j) {
                hang = Some(Hang::of(j.paths));
                return Next::Stop;
            }
            return Next::Continue;
        }
        for s in states_of(&p, j) {
            if let Some(f) = &test.filter {
                if !eval(&p, f, &s) {
                    continue;
                }
            }
            let sat = eval(&p, &test.condition, &s);
            if sat {
                positive += 1;
            } else {
                negative += 1;
            }
            states
                .entry(s)
                .or_insert(StateInfo {
                    count: 0,
                    satisfies: sat,
                })
                .count += 1;
        }
        Next::Continue
    })?;
    let holds = holds(test, ro.liveness, positive, negative, hang.is_some());
    Ok(Report {
        name: test.name.clone(),
        model: ro.model,
        quantifier: test.quantifier,
        condition: test.condition.clone(),
        terms: p.terms.clone(),
        states,
        positive,
        negative,
        candidates: counts.candidates,
        explored: 0,
        allowed: counts.allowed,
        holds,
        hang,
        liveness: ro.liveness,
        time: start.elapsed(),
    })
}

/// Whether a test's condition holds given its counts (liveness: whether no hang was found).
pub(crate) fn holds(test: &Test, liveness: bool, positive: u64, negative: u64, hang: bool) -> bool {
    if liveness {
        return !hang;
    }
    match test.quantifier {
        Quantifier::Exists => positive > 0,
        Quantifier::NotExists => positive == 0,
        Quantifier::Forall => negative == 0,
    }
}
