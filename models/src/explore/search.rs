//! The depth-first search of one exploration (or of one task of a split one): the state of a
//! partial execution, applying and taking back moves ([`super::moves`]), the checks
//! ([`super::check`]) and complete executions ([`super::leaf`]).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use smallvec::SmallVec;

use super::fast::Memo;
use super::moves::{quiet, Move, Moves};
use super::pairs::Pairs;
use super::symmetry::Symmetry;
use super::{local, Brakes, Halt, Progress, Sink, Stats, Universe};
use crate::event::EventKind;
use crate::ptx::{Choice, Statics};
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
    /// The interchangeable threads, when the universe asks for them and has some.
    pub symmetry: Option<Symmetry>,
}

impl Control<'_> {
    pub(super) fn halt(&self, h: Halt) {
        if let Ok(mut g) = self.halt.lock() {
            g.get_or_insert(h);
        }
        self.halting.store(true, Ordering::Relaxed);
    }
}

/// What taking a move back needs.
pub(super) struct Undo {
    thread: usize,
    added: bool,
    /// The deferred reads the move took out (position, read), in increasing position.
    taken: SmallVec<[(usize, usize); 4]>,
    /// The move deferred one read (pushed last).
    pushed: bool,
    /// The closed coherence before the move, kept when the checks changed it.
    pub(super) closed: Option<Rel>,
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
    pub(super) u: &'a Universe,
    pub(super) us: &'a Pairs,
    /// Which relations may have a pair ([`local::present`]).
    pub(super) present: [bool; 13],
    pub(super) ls: Statics,
    pub(super) sc: bool,
    pub(super) cap: usize,
    /// Universe event of each local index.
    pub(super) ids: Vec<usize>,
    /// Each thread's tree node.
    pub(super) at: Vec<u32>,
    /// Each finished thread's path.
    pub(super) ended: Vec<Option<u32>>,
    /// Each thread's events (local indices).
    pub(super) events: Vec<Vec<usize>>,
    /// Reads-from, the closure of `co` with the Coherence lower bound of the current partial
    /// execution (as `co`), and an empty Fence-SC order and barrier matching: what the
    /// checks judge, kept here so that no step copies it.
    pub(super) ch: Choice,
    /// Chosen coherence edges (initial writes first included).
    pub(super) co: Rel,
    /// Reads whose source is a write still to come.
    pub(super) deferred: Vec<usize>,
    /// Closed coherence relations taken back, to be filled again (no allocation per step).
    pub(super) spare: Vec<Rel>,
    /// The move index taken at each depth.
    pub(super) path: Vec<u32>,
    /// Move lists taken back, to be filled again (no allocation per step).
    pub(super) pool: Vec<Moves>,
    /// Per depth: what the last check there kept for the checks below it.
    pub(super) memo: Vec<Memo>,
    /// Forced move indices for the first depths (a task of a split).
    pub(super) script: &'a [u32],
    pub(super) task: usize,
    pub(super) ctl: &'a Control<'a>,
    pub(super) unflushed: u64,
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
            ch: Choice {
                rf: Rel::empty(cap),
                co: Rel::empty(cap),
                sc: Rel::empty(cap),
                syncbar: Rel::empty(cap),
            },
            co: Rel::empty(cap),
            deferred: Vec::new(),
            spare: Vec::new(),
            path: Vec::new(),
            memo: Vec::new(),
            pool: Vec::new(),
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
    pub(super) fn brakes(&self) -> Next {
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
    /// chosen thread's next events are tried. A thread about to make its key write waits for
    /// the previous thread of its class ([`super::symmetry`]).
    fn next_thread(&self) -> Option<usize> {
        let ev = &self.u.events;
        let made = |t: usize| self.events[t].len();
        let waits = |t: usize| {
            self.ctl
                .symmetry
                .as_ref()
                .is_some_and(|s| s.waits(t, &made))
        };
        (0..self.at.len())
            .filter(|&t| self.ended[t].is_none() && !waits(t))
            .min_by_key(|&t| {
                let waits = self.deferred.iter().any(|&r| {
                    let g = self.ids[r];
                    self.u.decides[g] && ev[g].thread == Some(t as u32)
                });
                // With interchangeable threads, an RMW's write follows its read at once, so that
                // a key write out of order dies before anything is built on it.
                let rmw_open = self.ctl.symmetry.is_some()
                    && self.events[t].last().is_some_and(|&k| {
                        let e = &ev[self.ids[k]];
                        e.rmw && e.kind == EventKind::Read
                    });
                (!rmw_open, waits, self.events[t].len())
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
        if self.collect.is_none() && d >= self.script.len() {
            if let Some(r) = self.forced_ends(sink) {
                return r;
            }
        }
        let mut moves = self.pool.pop().unwrap_or_default();
        self.moves(t, &mut moves);
        // The event in place: the moves of one child (its sources, its coherence placements)
        // come together and share the event and its static relations, gathered once.
        let at = self.at[t];
        let mut held: Option<u32> = None;
        let mut r = Next::Continue;
        for (i, m) in moves.list.iter().enumerate() {
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            if self.script.get(d).is_some_and(|&want| want != i) {
                continue;
            }
            let child = m.child();
            if let (Some(h), Some(c)) = (held, child) {
                if h != c && self.interchangeable(t, h, c) {
                    // A sibling with the same static relations: swap the event in place.
                    let (k, g) = (self.ids.len() - 1, self.node_event(t, c));
                    self.ids[k] = g;
                    self.at[t] = c;
                    held = Some(c);
                }
            }
            if held.is_some() && held != child {
                self.take_back(t, at);
                held = None;
            }
            if let (Some(c), None) = (child, held) {
                self.add(t, c);
                held = Some(c);
            }
            self.path.push(i);
            let mut undo = self.apply(t, m, &moves);
            r = if self.consistent(quiet(m), &mut undo) {
                self.step(sink)
            } else {
                Next::Continue
            };
            self.undo(undo);
            self.path.pop();
            if r == Next::Stop {
                break;
            }
        }
        if held.is_some() {
            self.take_back(t, at);
        }
        self.pool.push(moves);
        r
    }

    /// When no read is deferred and every unfinished thread is at a node whose only move is
    /// its end, those moves are the only way on, and each passes the checks (they are quiet,
    /// and check 1 has no deferred read to look at): ends them all at once and judges the
    /// complete execution, counting the steps as taken one by one.
    fn forced_ends(&mut self, sink: &mut dyn Sink) -> Option<Next> {
        if !self.deferred.is_empty() {
            return None;
        }
        let mut open: SmallVec<[usize; 8]> = SmallVec::new();
        for t in (0..self.at.len()).filter(|&t| self.ended[t].is_none()) {
            let node = &self.u.trees[t].nodes[self.at[t] as usize];
            if !(node.children.is_empty() && node.ends.len() == 1) {
                return None;
            }
            open.push(t);
        }
        let m = open.len() as u64;
        for &t in &open {
            self.ended[t] = Some(self.u.trees[t].nodes[self.at[t] as usize].ends[0]);
        }
        self.stats.explored += m;
        self.unflushed += m;
        let r = self.leaf(sink);
        for &t in &open {
            self.ended[t] = None;
        }
        Some(r)
    }

    /// The universe event at thread `t`'s tree node `x`.
    fn node_event(&self, t: usize, x: u32) -> usize {
        self.u.trees[t].nodes[x as usize].event.unwrap_or(0)
    }

    /// Whether thread `t`'s sibling tree nodes `a` and `b` have events with the same static
    /// relations against every other event and the same sets ([`Pairs::same_statics`]).
    fn interchangeable(&self, t: usize, a: u32, b: u32) -> bool {
        self.us
            .same_statics(self.node_event(t, a), self.node_event(t, b))
    }

    /// Adds thread `t`'s event at tree node `child`, with its static relations.
    fn add(&mut self, t: usize, child: u32) {
        let k = self.ids.len();
        let g = self.u.trees[t].nodes[child as usize].event.unwrap_or(0);
        self.ids.push(g);
        self.events[t].push(k);
        local::gather(&mut self.ls, self.us, &self.u.events, &self.ids);
        self.at[t] = child;
    }

    /// Takes back the last event (thread `t`'s, added at node `at`'s child).
    fn take_back(&mut self, t: usize, at: u32) {
        let k = self.ids.len() - 1;
        local::forget(&mut self.ls, &self.present, k);
        self.ids.pop();
        self.events[t].pop();
        self.at[t] = at;
    }

    /// Applies a move whose event, if it has one, is in place ([`Search::add`]): its
    /// reads-from and coherence edges, the deferred reads, a thread's end.
    fn apply(&mut self, t: usize, m: &Move, ms: &Moves) -> Undo {
        let mut undo = Undo {
            thread: t,
            added: true,
            taken: SmallVec::new(),
            pushed: false,
            closed: None,
        };
        if let Some(memo) = self.memo.get_mut(self.path.len()) {
            memo.valid = false;
        }
        match m {
            Move::End(e) => {
                self.ended[t] = Some(*e);
                undo.added = false;
            }
            Move::Read { src, .. } => {
                let k = self.ids.len() - 1;
                match src {
                    Some(j) => self.ch.rf.add(*j, k),
                    None => {
                        self.deferred.push(k);
                        undo.pushed = true;
                    }
                }
            }
            Move::Write { order, takes, .. } => {
                let (o, taken) = ms.write(*order, *takes);
                let (before, after) = (&o.before, &o.after);
                let k = self.ids.len() - 1;
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
                for r in taken {
                    self.ch.rf.add(k, r);
                    if let Some(p) = self.deferred.iter().position(|&d| d == r) {
                        undo.taken.push((p, r));
                    }
                }
                if !undo.taken.is_empty() {
                    undo.taken.sort_unstable();
                    for &(p, _) in undo.taken.iter().rev() {
                        self.deferred.remove(p);
                    }
                }
            }
            Move::Plain { .. } => {}
        }
        undo
    }

    /// Takes back a move's edges (its event stays, for the next move of the same child).
    fn undo(&mut self, u: Undo) {
        let t = u.thread;
        if u.added {
            let k = self.ids.len() - 1;
            self.ch.rf.clear_last(k);
            self.co.clear_last(k);
        } else {
            self.ended[t] = None;
        }
        if !u.taken.is_empty() {
            for &(p, r) in &u.taken {
                self.deferred.insert(p, r);
            }
        } else if u.pushed {
            self.deferred.pop();
        }
        if let Some(closed) = u.closed {
            let later = std::mem::replace(&mut self.ch.co, closed);
            self.spare.push(later);
        }
    }
}
