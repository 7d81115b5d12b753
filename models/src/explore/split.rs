//! Running an exploration on one thread or several: the search tree is cut at a depth where
//! it has enough branches, each branch (the moves that lead to it) becomes a task, and worker
//! threads take tasks in order. Each task has its own sink; the sinks come back in tree
//! order, so what a caller merges from them does not depend on the number of workers.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::pairs::Pairs;
use super::search::{Collect, Control, Search};
use super::symmetry::Symmetry;
use super::{Brakes, Leaf, Outcome, Progress, Sink, Stats, Universe};
use crate::ptx::{Model, Options};
use crate::rel::Rel;
use crate::Next;

/// Tasks per worker wanted before the tree is cut (so uneven branches even out).
const TASKS_PER_JOB: usize = 8;

/// Collecting tasks never reaches a complete execution's judgement.
struct NoSink;

impl Sink for NoSink {
    fn syncbars(&mut self, _: &[u32], _: &[Vec<usize>], _: usize) -> Vec<Rel> {
        Vec::new()
    }
    fn visit(&mut self, _: &Universe, _: &Leaf<'_>) -> Next {
        Next::Continue
    }
}

/// Explores every consistent execution of `u` under `model`, on `jobs` threads, handing each
/// complete execution to a sink made by `make` (one per task).
pub fn explore<S: Sink + Send>(
    u: &Universe,
    model: Model,
    opts: Options,
    jobs: usize,
    brakes: Brakes,
    progress: Option<&Progress>,
    make: &(dyn Fn() -> S + Sync),
) -> Outcome<S> {
    let own = Progress::default();
    let us = Pairs::new(&u.events, &u.rmw, &u.deps, model, opts);
    let symmetry = if u.symmetric {
        Symmetry::find(u, &us, model == Model::Sc)
    } else {
        None
    };
    let ctl = Control {
        brakes,
        progress: progress.unwrap_or(&own),
        executions: AtomicU64::new(0),
        halting: AtomicBool::new(false),
        halt: Mutex::new(None),
        stop_after: AtomicUsize::new(usize::MAX),
        symmetry,
    };
    let (sinks, stats) = if jobs <= 1 {
        let mut sink = make();
        let mut s = Search::new(u, &us, &ctl, &[], 0);
        s.run(&mut sink);
        (vec![sink], s.stats)
    } else {
        let (tasks, mut stats) = split(u, &us, &ctl, jobs);
        let (sinks, more) = work(u, &us, &ctl, &tasks, jobs, make);
        stats.explored += more.explored;
        stats.executions += more.executions;
        stats.allowed += more.allowed;
        (sinks, stats)
    };
    let halted = ctl.halt.into_inner().ok().flatten();
    Outcome {
        sinks,
        stats,
        halted,
    }
}

/// The tasks: the move paths at the first depth (tried in steps of two) with at least
/// `TASKS_PER_JOB` per worker, or every path when the tree is smaller; and the steps taken
/// above that depth.
fn split(u: &Universe, us: &Pairs, ctl: &Control<'_>, jobs: usize) -> (Vec<Vec<u32>>, Stats) {
    let mut depth = 2;
    loop {
        let mut s = Search::new(u, us, ctl, &[], 0);
        s.collect = Some(Collect {
            depth,
            tasks: Vec::new(),
            cut: false,
        });
        s.run(&mut NoSink);
        let Some(c) = s.collect.take() else {
            return (Vec::new(), s.stats);
        };
        if c.tasks.len() >= TASKS_PER_JOB * jobs || !c.cut || depth >= 256 {
            return (c.tasks, s.stats);
        }
        depth += 2;
    }
}

/// Runs the tasks on `jobs` workers; returns the sinks of the tasks that ran to their end (or
/// to the stop a sink asked for), in task order, and their counts.
fn work<S: Sink + Send>(
    u: &Universe,
    us: &Pairs,
    ctl: &Control<'_>,
    tasks: &[Vec<u32>],
    jobs: usize,
    make: &(dyn Fn() -> S + Sync),
) -> (Vec<S>, Stats) {
    let slots: Vec<Mutex<Option<(S, Stats)>>> = tasks.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(tasks.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= tasks.len()
                    || ctl.halting.load(Ordering::Relaxed)
                    || ctl.stop_after.load(Ordering::Relaxed) < i
                {
                    break;
                }
                let mut sink = make();
                let mut s = Search::new(u, us, ctl, &tasks[i], i);
                s.run(&mut sink);
                if let Ok(mut slot) = slots[i].lock() {
                    *slot = Some((sink, s.stats));
                }
            });
        }
    });
    let last = ctl.stop_after.load(Ordering::Relaxed);
    let mut sinks = Vec::new();
    let mut stats = Stats::default();
    for (i, slot) in slots.into_iter().enumerate() {
        if i > last {
            break;
        }
        if let Some((sink, st)) = slot.into_inner().ok().flatten() {
            sinks.push(sink);
            stats.explored += st.explored;
            stats.executions += st.executions;
            stats.allowed += st.allowed;
        }
    }
    (sinks, stats)
}
