//! The depth-first search of one exploration (or of one task of a split one): the state of a
//! partial execution, the moves that extend it, and the checks of the module docs.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::pairs::Pairs;
use super::{local, Brakes, Halt, Leaf, Progress, Sink, Stats, Universe};
use crate::event::EventKind;
use crate::ptx::{Axiom, Choice, Statics};
use crate::rel::Rel;
use crate::{Model, Next};

/// How many search steps a worker takes between looks at the clock and the shared flags.
const TICK: u64 = 256;

/// What the workers of one exploration share.
pub(super) struct Control<'p> {
    /// The limits.
    pub brakes: Brakes,
    /// Counters for a progress display.
    pub progress: &'p Progress,
    /// Complete executions judged so far, over every worker (for `max_executions`).
    pub executions: AtomicU64,
    /// Set when a brake stops the exploration.
    pub halting: AtomicBool,
    /// Which brake.
    pub halt: Mutex<Option<Halt>>,
    /// A sink asked to stop in this task: later tasks stop too (earlier ones finish, so the
    /// first answer in tree order is the one kept).
    pub stop_after: AtomicUsize,
}

impl Control<'_> {
    fn halt(&self, h: Halt) {
        if let Ok(mut g) = self.halt.lock() {
            g.get_or_insert(h);
        }
        self.halting.store(true, Ordering::Relaxed);
    }
}

/// One way to extend a partial execution.
enum Move {
    /// Thread ends with this path.
    End(u32),
    /// Add a read, reading from a present write (local index) or from a later one.
    Read { child: u32, src: Option<usize> },
    /// Add a write, after the `before` writes and before the `after` ones, and the source of
    /// the deferred reads in `takes`.
    Write {
        child: u32,
        before: Vec<usize>,
        after: Vec<usize>,
        takes: Vec<usize>,
    },
    /// Add a fence or barrier.
    Plain { child: u32 },
}

/// What taking a move back needs.
struct Undo {
    thread: usize,
    prev_at: u32,
    added: bool,
    deferred: Vec<usize>,
    /// `closed` before the move, kept only when the move may change it (not [`quiet`]).
    closed: Option<Rel>,
}

/// Collecting the tasks of a split: the decision paths at `depth` (or at an earlier complete
/// execution), and whether any path was cut there.
pub(super) struct Collect {
    pub depth: usize,
    pub tasks: Vec<Vec<u32>>,
    pub cut: bool,
}

/// The search state.
pub(super) struct Search<'a> {
    u: &'a Universe,
    us: &'a Pairs,
    /// Which relations may have a pair ([`local::present`]).
    present: [bool; 13],
    ls: Statics,
    sc: bool,
    cap: usize,
    /// Universe event of each local index.
    ids: Vec<usize>,
    /// Each thread's tree node.
    at: Vec<u32>,
    /// Each finished thread's path.
    ended: Vec<Option<u32>>,
    /// Each thread's events (local indices).
    events: Vec<Vec<usize>>,
    rf: Rel,
    /// Chosen coherence edges (initial writes first included).
    co: Rel,
    /// The closure of `co` and the Coherence lower bound of the current partial execution.
    closed: Rel,
    /// Reads whose source is a write still to come.
    deferred: Vec<usize>,
    /// The move index taken at each depth.
    path: Vec<u32>,
    /// Forced move indices for the first depths (a task of a split).
    script: &'a [u32],
    task: usize,
    ctl: &'a Control<'a>,
    unflushed: u64,
    /// Counts of this search.
    pub stats: Stats,
    /// Set when collecting the tasks of a split.
    pub collect: Option<Collect>,
}

impl<'a> Search<'a> {
    /// A search over `u` that follows `script` first, as task number `task`.
    pub fn new(
        u: &'a Universe,
        us: &'a Pairs,
        ctl: &'a Control<'a>,
        script: &'a [u32],
        task: usize,
    ) -> Search<'a> {
        let cap = u.cap;
        let mut s = Search {
            u,
            us,
            present: local::present(us),
            ls: local::blank(us.model, us.opts, cap),
            sc: us.model == Model::Sc,
            cap,
            ids: Vec::new(),
            at: vec![0; u.trees.len()],
            ended: vec![None; u.trees.len()],
            events: vec![Vec::new(); u.trees.len()],
            rf: Rel::empty(cap),
            co: Rel::empty(cap),
            closed: Rel::empty(cap),
            deferred: Vec::new(),
            path: Vec::new(),
            script,
            task,
            ctl,
            unflushed: 0,
            stats: Stats::default(),
            collect: None,
        };
        for i in 0..u.inits {
            s.ids.push(i);
            local::gather(&mut s.ls, us, &u.events, &s.ids);
        }
        s
    }

    /// Runs the search, handing complete executions to `sink`.
    pub fn run(&mut self, sink: &mut dyn Sink) {
        self.step(sink);
        self.flush();
    }

    fn flush(&mut self) {
        self.ctl
            .progress
            .explored
            .fetch_add(self.unflushed, Ordering::Relaxed);
        self.unflushed = 0;
    }

    /// Counts a step; every [`TICK`] steps, looks at the brakes.
    fn tick(&mut self) -> Next {
        self.stats.explored += 1;
        self.unflushed += 1;
        if self.unflushed < TICK {
            return Next::Continue;
        }
        self.flush();
        self.brakes()
    }

    /// Whether to stop: another worker halted or a sink stopped, or a brake is reached.
    fn brakes(&self) -> Next {
        if self.ctl.halting.load(Ordering::Relaxed)
            || self.ctl.stop_after.load(Ordering::Relaxed) < self.task
        {
            return Next::Stop;
        }
        if let Some(max) = self.ctl.brakes.max_explored {
            if self.ctl.progress.explored.load(Ordering::Relaxed) > max {
                self.ctl.halt(Halt::MaxExplored(max));
                return Next::Stop;
            }
        }
        if let Some(d) = self.ctl.brakes.deadline {
            if Instant::now() >= d {
                self.ctl.halt(Halt::Timeout);
                return Next::Stop;
            }
        }
        Next::Continue
    }

    /// The thread to extend: an unfinished one that waits on no deferred read of its own that
    /// its later events depend on, if there is one (such a thread runs ahead of the write it
    /// needs: at an await loop, the waiting thread's critical section before the holder's
    /// release), then
    /// the one with the fewest events (round robin), so that reads find their writes present
    /// early and deferred reads resolve early. Any choice builds every execution once: all the
    /// chosen thread's next events are tried.
    fn next_thread(&self) -> Option<usize> {
        let ev = &self.u.events;
        (0..self.at.len())
            .filter(|&t| self.ended[t].is_none())
            .min_by_key(|&t| {
                let waits = self.deferred.iter().any(|&r| {
                    let g = self.ids[r];
                    self.u.decides[g] && ev[g].thread == Some(t as u32)
                });
                (waits, self.events[t].len())
            })
    }

    fn step(&mut self, sink: &mut dyn Sink) -> Next {
        let d = self.path.len();
        let next = self.next_thread();
        if let Some(c) = self.collect.as_mut() {
            if next.is_none() || d == c.depth {
                c.tasks.push(self.path.clone());
                c.cut |= next.is_some();
                return Next::Continue;
            }
        }
        if d >= self.script.len() && self.tick() == Next::Stop {
            return Next::Stop;
        }
        let Some(t) = next else {
            return self.leaf(sink);
        };
        let moves = self.moves(t);
        for (i, m) in moves.iter().enumerate() {
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            if self.script.get(d).is_some_and(|&want| want != i) {
                continue;
            }
            self.path.push(i);
            let undo = self.apply(t, m);
            let r = if self.consistent(quiet(m)) {
                self.step(sink)
            } else {
                Next::Continue
            };
            self.undo(undo);
            self.path.pop();
            if r == Next::Stop {
                return Next::Stop;
            }
        }
        Next::Continue
    }

    /// Whether some unfinished thread can still write `value` to `loc`; thread `t` is taken at
    /// node `x` (where it is about to be).
    fn can_write_later(&self, t: usize, x: u32, loc: u32, value: i64) -> bool {
        (0..self.at.len()).any(|t2| {
            self.ended[t2].is_none()
                && self
                    .u
                    .can_write(t2, if t2 == t { x } else { self.at[t2] }, loc, value)
        })
    }

    fn moves(&self, t: usize) -> Vec<Move> {
        let tree = &self.u.trees[t];
        let node = &tree.nodes[self.at[t] as usize];
        let ev = &self.u.events;
        let mut out: Vec<Move> = node.ends.iter().map(|&e| Move::End(e)).collect();
        for &c in &node.children {
            let Some(g) = tree.nodes[c as usize].event else {
                continue;
            };
            let e = &ev[g];
            match e.kind {
                EventKind::Read => {
                    for (j, &h) in self.ids.iter().enumerate() {
                        let w = &ev[h];
                        if w.kind == EventKind::Write && w.loc == e.loc && w.value == e.value {
                            out.push(Move::Read {
                                child: c,
                                src: Some(j),
                            });
                        }
                    }
                    if self.can_write_later(t, c, e.loc.unwrap_or(u32::MAX), e.value) {
                        out.push(Move::Read {
                            child: c,
                            src: None,
                        });
                    }
                }
                EventKind::Write => self.write_moves(c, g, &mut out),
                EventKind::Fence | EventKind::Barrier => out.push(Move::Plain { child: c }),
            }
        }
        out
    }

    /// The ways to add write `g` at tree node `c`: each acyclic orientation against the
    /// present writes it must be ordered with, times each subset of the deferred reads of its
    /// location and value that take it as their source.
    fn write_moves(&self, c: u32, g: usize, out: &mut Vec<Move>) {
        let ev = &self.u.events;
        let e = &ev[g];
        let partners: Vec<usize> = (self.u.inits..self.ids.len())
            .filter(|&j| {
                let h = self.ids[j];
                ev[h].kind == EventKind::Write
                    && ev[h].loc == e.loc
                    && (self.sc || self.us.ms_either(h, g))
            })
            .collect();
        let mut orders = Vec::new();
        orient(
            &self.closed,
            &partners,
            &mut Vec::new(),
            &mut Vec::new(),
            &mut orders,
        );
        let readers: Vec<usize> = self
            .deferred
            .iter()
            .copied()
            .filter(|&r| ev[self.ids[r]].loc == e.loc && ev[self.ids[r]].value == e.value)
            .collect();
        for (before, after) in orders {
            for mask in 0..1u64 << readers.len().min(63) {
                let takes = (0..readers.len())
                    .filter(|&i| mask >> i & 1 == 1)
                    .map(|i| readers[i])
                    .collect();
                out.push(Move::Write {
                    child: c,
                    before: before.clone(),
                    after: after.clone(),
                    takes,
                });
            }
        }
    }

    fn add(&mut self, t: usize, child: u32) -> usize {
        let k = self.ids.len();
        let g = self.u.trees[t].nodes[child as usize].event.unwrap_or(0);
        self.ids.push(g);
        self.events[t].push(k);
        local::gather(&mut self.ls, self.us, &self.u.events, &self.ids);
        self.at[t] = child;
        k
    }

    fn apply(&mut self, t: usize, m: &Move) -> Undo {
        let mut undo = Undo {
            thread: t,
            prev_at: self.at[t],
            added: true,
            deferred: self.deferred.clone(),
            closed: (!quiet(m)).then(|| self.closed.clone()),
        };
        match m {
            Move::End(e) => {
                self.ended[t] = Some(*e);
                undo.added = false;
            }
            Move::Read { child, src } => {
                let k = self.add(t, *child);
                match src {
                    Some(j) => self.rf.add(*j, k),
                    None => self.deferred.push(k),
                }
            }
            Move::Write {
                child,
                before,
                after,
                takes,
            } => {
                let k = self.add(t, *child);
                let ev = &self.u.events;
                let loc = ev[self.ids[k]].loc;
                for i in 0..self.u.inits {
                    if ev[self.ids[i]].loc == loc {
                        self.co.add(i, k);
                    }
                }
                for &b in before {
                    self.co.add(b, k);
                }
                for &a in after {
                    self.co.add(k, a);
                }
                for &r in takes {
                    self.rf.add(k, r);
                }
                self.deferred.retain(|r| !takes.contains(r));
            }
            Move::Plain { child } => {
                self.add(t, *child);
            }
        }
        undo
    }

    fn undo(&mut self, u: Undo) {
        let t = u.thread;
        if u.added {
            let k = self.ids.len() - 1;
            local::forget(&mut self.ls, &self.present, k);
            self.rf.clear_last(k);
            self.co.clear_last(k);
            self.ids.pop();
            self.events[t].pop();
        } else {
            self.ended[t] = None;
        }
        self.at[t] = u.prev_at;
        self.deferred = u.deferred;
        if let Some(closed) = u.closed {
            self.closed = closed;
        }
    }

    /// The checks of the module docs on the current partial execution; updates `closed`.
    /// `quiet`: the last move changed no relation that a check reads (see [`quiet`]).
    fn consistent(&mut self, quiet: bool) -> bool {
        let ev = &self.u.events;
        for &r in &self.deferred {
            let e = &ev[self.ids[r]];
            let loc = e.loc.unwrap_or(u32::MAX);
            let possible = (0..self.at.len())
                .any(|t| self.ended[t].is_none() && self.u.can_write(t, self.at[t], loc, e.value));
            if !possible {
                return false;
            }
        }
        if !self.deferred.is_empty() && !self.deferred_producible() {
            return false;
        }
        if quiet {
            return true;
        }
        let none = Rel::empty(self.cap);
        let (cause, co_all) = self.cause_and_co(&none, &none);
        let closed = co_all.plus();
        if !closed.irreflexive() {
            return false;
        }
        let ch = Choice {
            rf: self.rf.clone(),
            co: closed,
            sc: none.clone(),
            syncbar: none,
        };
        let ok = self.ls.check(&ch, &cause).is_ok();
        self.closed = ch.co;
        ok
    }

    /// Whether every deferred read's value can still be written by a write whose own path
    /// can read what it depends on (check 1 of the module docs): the least set `F` of
    /// (location, value) pairs that the unfinished threads can write below where they are,
    /// counting a write only when each read it depends on reads a present write's value or
    /// one of `F`.
    fn deferred_producible(&self) -> bool {
        let ev = &self.u.events;
        let key = |g: usize| (ev[g].loc.unwrap_or(u32::MAX), ev[g].value);
        let mut present: Vec<(u32, i64)> = self
            .ids
            .iter()
            .filter(|&&g| ev[g].kind == EventKind::Write)
            .map(|&g| key(g))
            .collect();
        present.sort_unstable();
        present.dedup();
        let mut future: Vec<(u32, i64)> = Vec::new();
        let live: Vec<usize> = (0..self.at.len())
            .filter(|&t| self.ended[t].is_none())
            .collect();
        loop {
            let mut grew = false;
            for &t in &live {
                for (w, need) in self.u.writes_below(t, self.at[t]) {
                    if future.contains(&w) {
                        continue;
                    }
                    let ok = need
                        .iter()
                        .all(|r| present.binary_search(r).is_ok() || future.contains(r));
                    if ok {
                        future.push(w);
                        grew = true;
                    }
                }
            }
            if !grew {
                break;
            }
        }
        self.deferred
            .iter()
            .all(|&r| future.contains(&key(self.ids[r])))
    }

    /// Causality under a Fence-SC order and barrier matching, and the chosen coherence edges
    /// with the Coherence lower bound it gives.
    fn cause_and_co(&self, sc: &Rel, bar: &Rel) -> (Rel, Rel) {
        if self.sc {
            return (Rel::empty(self.cap), self.co.clone());
        }
        let cause = self.ls.cause(&self.rf, sc, bar);
        let lower = cause.restrict(&self.ls.w, &self.ls.w).inter(&self.ls.loc);
        let co_all = self.co.union(&lower);
        (cause, co_all)
    }

    /// A complete execution: judge it under every Fence-SC order and barrier matching.
    fn leaf(&mut self, sink: &mut dyn Sink) -> Next {
        let ends: Vec<u32> = self.ended.iter().map(|e| e.unwrap_or(0)).collect();
        let bars = sink.syncbars(&ends, &self.events, self.cap);
        for sc in &self.sc_orders() {
            for bar in &bars {
                // Judging one complete execution costs more than a step: look at the brakes.
                if self.brakes() == Next::Stop {
                    return Next::Stop;
                }
                let before = self.ctl.executions.fetch_add(1, Ordering::Relaxed);
                if let Some(max) = self.ctl.brakes.max_executions {
                    if before >= max {
                        self.ctl.halt(Halt::MaxExecutions(max));
                        return Next::Stop;
                    }
                }
                let (cause, co_all) = self.cause_and_co(sc, bar);
                let closed = co_all.plus();
                let cyclic = !closed.irreflexive();
                let ch = Choice {
                    rf: self.rf.clone(),
                    co: if cyclic { co_all.clone() } else { closed },
                    sc: sc.clone(),
                    syncbar: bar.clone(),
                };
                let verdict = if cyclic {
                    let cycle = co_all.find_cycle().unwrap_or_default();
                    let named = [("cause", &cause), ("co", &co_all)];
                    Err(self.ls.labelled(Axiom::Coherence, cycle, &named))
                } else {
                    self.ls.check(&ch, &cause)
                };
                self.stats.executions += 1;
                let p = self.ctl.progress;
                p.executions.fetch_add(1, Ordering::Relaxed);
                if verdict.is_ok() {
                    self.stats.allowed += 1;
                    p.allowed.fetch_add(1, Ordering::Relaxed);
                }
                let leaf = Leaf {
                    ends: &ends,
                    events: &self.events,
                    ids: &self.ids,
                    choice: &ch,
                    verdict: &verdict,
                };
                if sink.visit(self.u, &leaf) == Next::Stop {
                    self.ctl.stop_after.fetch_min(self.task, Ordering::Relaxed);
                    return Next::Stop;
                }
            }
        }
        Next::Continue
    }

    /// The distinct Fence-SC orders of the present `fence.sc` events, as
    /// [`crate::enumerate::sc_orders`] builds them.
    fn sc_orders(&self) -> Vec<Rel> {
        let n = self.cap;
        let fences: Vec<usize> = (0..self.ids.len())
            .filter(|&i| self.ls.f_sc.contains(i))
            .collect();
        if self.sc || fences.len() < 2 {
            return vec![Rel::empty(n)];
        }
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        let mut perm = fences;
        crate::enumerate::permute(&mut perm, 0, &mut |p| {
            let mut r = Rel::empty(n);
            for i in 0..p.len() {
                for j in i + 1..p.len() {
                    if self.ls.sr.has(p[i], p[j]) {
                        r.add(p[i], p[j]);
                    }
                }
            }
            if seen.insert(r.clone()) {
                out.push(r);
            }
        });
        out
    }
}

/// Whether a move leaves every relation between present events, and every constraint on the
/// new event, unchanged, so that only the deferred reads need a look: a thread's end; a
/// deferred read or a fence or barrier, added last in its thread with no edge leaving it (no
/// reads-from, no coherence, no program-order successor, and no pattern can start at it
/// without a later event), so no new path runs through it and none of the axioms'
/// relations gains an edge out of it.
fn quiet(m: &Move) -> bool {
    match m {
        Move::End(_) | Move::Plain { .. } | Move::Read { src: None, .. } => true,
        Move::Read { src: Some(_), .. } | Move::Write { .. } => false,
    }
}

/// Every split of `partners` into writes before and after a new write that closes no cycle
/// with `closed` (a write after it must not be coherence-before one before it).
fn orient(
    closed: &Rel,
    partners: &[usize],
    before: &mut Vec<usize>,
    after: &mut Vec<usize>,
    out: &mut Vec<(Vec<usize>, Vec<usize>)>,
) {
    let Some((&x, rest)) = partners.split_first() else {
        out.push((before.clone(), after.clone()));
        return;
    };
    if after.iter().all(|&a| !closed.has(a, x)) {
        before.push(x);
        orient(closed, rest, before, after, out);
        before.pop();
    }
    if before.iter().all(|&b| !closed.has(x, b)) {
        after.push(x);
        orient(closed, rest, before, after, out);
        after.pop();
    }
}
