//! Running a litmus test with the incremental explorer ([`models::explore`]): each thread's
//! paths become a tree of events (paths that agree on a prefix share it), the explorer builds
//! the consistent executions over those trees, and the outcomes are collected as
//! [`crate::run`]'s reference enumeration collects them.

use std::collections::{BTreeMap, BTreeSet};

use emu::event::{Ending, Trace, TraceEvent};
use models::event::EventKind;
use models::explore::{explore, Brakes, Halt, Leaf, Progress, Sink, Tree, TreeNode, Universe};
use models::rel::Rel;
use models::Next;

use crate::ast::Test;
use crate::barrier::syncbar_options;
use crate::run::{
    eval, holds, prepare, reached_at, states_from, thread_paths, to_event, usable_paths, Hang,
    Prepared, Report, RunError, RunOptions, StateInfo,
};

/// The universe of a test: every event of every path of every thread (`per[t]` are thread
/// `t`'s paths; the trees' ends number them).
pub fn universe(p: &Prepared, per: &[Vec<&Trace>]) -> Universe {
    let mut events: Vec<models::Event> = (0..p.locs.names.len())
        .map(|k| {
            models::Event::init(
                p.phys[k],
                p.vloc[k],
                p.init[k],
                format!("{} = {}", p.locs.names[k], p.init[k]),
            )
        })
        .collect();
    let inits = events.len();
    let (mut rmw, mut data, mut ctrl) = (Vec::new(), Vec::new(), Vec::new());
    let mut trees = Vec::new();
    for (t, paths) in per.iter().enumerate() {
        let mut tree = Tree {
            nodes: vec![TreeNode::default()],
        };
        let mut keys: Vec<Option<&TraceEvent>> = vec![None];
        let mut along: Vec<usize> = Vec::new();
        for (i, tr) in paths.iter().enumerate() {
            let mut x = 0usize;
            along.clear();
            for e in &tr.events {
                // Children differ pairwise, so at most one matches; paths come in the order
                // of a depth-first exploration, where it is most often the last one added.
                let found = tree.nodes[x]
                    .children
                    .iter()
                    .rev()
                    .copied()
                    .find(|&c| keys[c as usize] == Some(e));
                x = match found {
                    Some(c) => c as usize,
                    None => {
                        let g = events.len();
                        events.push(to_event(p, t, e));
                        if let Some(Some(r)) = e.rmw {
                            rmw.extend(along.get(r).map(|&a| (a, g)));
                        }
                        data.extend(e.data.iter().filter_map(|&d| along.get(d)).map(|&a| (a, g)));
                        ctrl.extend(e.ctrl.iter().filter_map(|&d| along.get(d)).map(|&a| (a, g)));
                        let c = tree.nodes.len();
                        tree.nodes.push(TreeNode {
                            event: Some(g),
                            ..TreeNode::default()
                        });
                        keys.push(Some(e));
                        tree.nodes[x].children.push(index(c));
                        c
                    }
                };
                along.extend(tree.nodes[x].event);
            }
            tree.nodes[x].ends.push(index(i));
        }
        trees.push(tree);
    }
    let mut deps = data;
    deps.extend(ctrl);
    Universe::new(events, inits, trees, rmw, deps)
}

fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// Collects the outcomes of one task's complete executions.
struct Outcomes<'a> {
    p: &'a Prepared,
    per: &'a [Vec<&'a Trace>],
    liveness: bool,
    states: BTreeMap<Vec<i64>, StateInfo>,
    positive: u64,
    negative: u64,
    hang: Option<Hang>,
}

impl Outcomes<'_> {
    fn paths(&self, ends: &[u32]) -> Vec<&Trace> {
        ends.iter()
            .enumerate()
            .map(|(t, &e)| self.per[t][e as usize])
            .collect()
    }
}

impl Sink for Outcomes<'_> {
    fn syncbars(&mut self, ends: &[u32], events: &[Vec<usize>], n: usize) -> Vec<Rel> {
        let paths = self.paths(ends);
        if self.liveness && paths.iter().all(|t| t.ending == Ending::Done) {
            return Vec::new();
        }
        let r = reached_at(&paths, &|t, i| events[t][i]);
        syncbar_options(&self.p.barriers, &r, &self.p.places, n)
    }

    fn visit(&mut self, u: &Universe, leaf: &Leaf<'_>) -> Next {
        if leaf.verdict.is_err() {
            return Next::Continue;
        }
        let paths = self.paths(leaf.ends);
        if self.liveness {
            if fair(u, leaf, &paths) {
                self.hang = Some(Hang::of(&paths));
                return Next::Stop;
            }
            return Next::Continue;
        }
        let ev = &u.events;
        let cm = leaf.co_maximal(u);
        let finals = |ph: u32| -> BTreeSet<i64> {
            cm.iter()
                .map(|&w| &ev[leaf.ids[w]])
                .filter(|e| e.loc == Some(ph))
                .map(|e| e.value)
                .collect()
        };
        let test = &self.p.test;
        for s in states_from(self.p, &paths, &finals) {
            if let Some(f) = &test.filter {
                if !eval(self.p, f, &s) {
                    continue;
                }
            }
            let sat = eval(self.p, &test.condition, &s);
            if sat {
                self.positive += 1;
            } else {
                self.negative += 1;
            }
            self.states
                .entry(s)
                .or_insert(StateInfo {
                    count: 0,
                    satisfies: sat,
                })
                .count += 1;
        }
        Next::Continue
    }
}

/// Whether, in an execution where some thread does not finish, every spinning read reads a
/// co-maximal write (fairness), as [`crate::run`]'s `fair`.
fn fair(u: &Universe, leaf: &Leaf<'_>, paths: &[&Trace]) -> bool {
    let n = leaf.ids.len();
    let (rf, co) = (&leaf.choice.rf, &leaf.choice.co);
    for (t, tr) in paths.iter().enumerate() {
        if tr.ending != Ending::Spin {
            continue;
        }
        for &r in &leaf.events[t][tr.spin_start.min(leaf.events[t].len())..] {
            if u.events[leaf.ids[r]].kind != EventKind::Read {
                continue;
            }
            if (0..n).any(|w| rf.has(w, r) && (0..n).any(|x| co.has(w, x))) {
                return false;
            }
        }
    }
    true
}

/// Partial executions a `--max-executions` run may build per complete execution it allows.
pub const PARTIAL_PER_EXECUTION: u64 = 10_000;

/// The most partial executions a run may build: the candidate budget, and with
/// `--max-executions N` also `N` times [`PARTIAL_PER_EXECUTION`] (at least that many), so a
/// search whose partial executions rarely complete stops too.
fn max_explored(ro: &RunOptions) -> u64 {
    let cap = ro.max_candidates;
    match ro.max_executions {
        Some(n) => cap.min(n.max(1).saturating_mul(PARTIAL_PER_EXECUTION)),
        None => cap,
    }
}

/// Runs a test with the explorer.
///
/// # Errors
/// See [`RunError`]; [`RunError::Halted`] when a brake stops it.
pub fn run(test: &Test, ro: &RunOptions, progress: Option<&Progress>) -> Result<Report, RunError> {
    let start = crate::clock::Started::now();
    let p = prepare(test)?;
    let all =
        thread_paths(&p, ro.liveness, ro.path_limits(&start)).map_err(|e| ro.halted(e, &start))?;
    let per = usable_paths(&all, ro.liveness);
    // A liveness run looks only at executions where some thread does not finish: with no such
    // path there is nothing to explore.
    let nothing = ro.liveness && per.iter().flatten().all(|t| t.ending == Ending::Done);
    let per = if nothing { Vec::new() } else { per };
    let mut u = universe(&p, &per);
    // A liveness run stops at the first hang it meets: without symmetry, it is the one the
    // reference meets first.
    u.symmetric = ro.symmetry && !ro.liveness;
    let max = ro.max_executions.unwrap_or(u64::MAX).min(ro.max_candidates);
    let brakes = Brakes {
        max_executions: Some(max),
        max_explored: Some(max_explored(ro)),
        deadline: start.deadline(ro.timeout),
    };
    let make = || Outcomes {
        p: &p,
        per: &per,
        liveness: ro.liveness,
        states: BTreeMap::new(),
        positive: 0,
        negative: 0,
        hang: None,
    };
    let out = explore(&u, ro.model, ro.opts, ro.jobs, brakes, progress, &make);
    if let Some(h) = out.halted {
        let brake = match h {
            Halt::MaxExecutions(n) if ro.max_executions != Some(n) => {
                return Err(RunError::Budget(n));
            }
            Halt::MaxExecutions(n) => format!("--max-executions {n}"),
            Halt::MaxExplored(n) => match ro.max_executions {
                Some(m) if n < ro.max_candidates => {
                    format!("--max-executions {m} (at {n} partial executions)")
                }
                _ => format!("the budget of {n} partial executions (--max-candidates raises it)"),
            },
            Halt::Timeout => format!("--timeout {}", ro.timeout.unwrap_or_default().as_secs_f64()),
        };
        return Err(RunError::Halted {
            brake,
            explored: out.stats.explored,
            executions: out.stats.executions,
            allowed: out.stats.allowed,
            millis: u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
        });
    }
    let mut states: BTreeMap<Vec<i64>, StateInfo> = BTreeMap::new();
    let (mut positive, mut negative, mut hang) = (0, 0, None);
    for s in out.sinks {
        positive += s.positive;
        negative += s.negative;
        for (k, v) in s.states {
            states
                .entry(k)
                .or_insert(StateInfo {
                    count: 0,
                    satisfies: v.satisfies,
                })
                .count += v.count;
        }
        if hang.is_none() {
            hang = s.hang;
        }
    }
    Ok(Report {
        name: test.name.clone(),
        model: ro.model,
        quantifier: test.quantifier,
        condition: test.condition.clone(),
        terms: p.terms.clone(),
        holds: holds(test, ro.liveness, positive, negative, hang.is_some()),
        states,
        positive,
        negative,
        candidates: out.stats.executions,
        explored: out.stats.explored,
        allowed: out.stats.allowed,
        hang,
        liveness: ro.liveness,
        time: start.elapsed(),
    })
}
