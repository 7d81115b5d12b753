//! `cp.async` and `mbarrier` in the race detector (docs/race.md, "Asynchronous copies and
//! mbarriers").
//!
//! - A `cp.async` is performed by the issuing thread's *copy agent*, a pseudo-thread with its
//!   own clock entry (the thread's id with [`AGENT`] set): its global read and shared write
//!   are weak accesses of the agent, ordered after everything the thread did before the issue
//!   and before nothing of the thread. They are recorded when the copy is issued (the earliest
//!   point the copy may be performed), so any access that the copy's completion is not
//!   ordered before races with them, wherever the interpreter delivers the bytes.
//! - `cp.async.wait_group` / `wait_all` order the waited copies before the thread's later
//!   events (the thread's clock takes the agent's entry); other threads only through a
//!   synchronisation after the wait (a barrier).
//! - `mbarrier.arrive` (not `.relaxed`) is a release: the thread's clock joins the phase's
//!   clock. `cp.async.mbarrier.arrive` arrives when the thread's earlier copies complete: the
//!   copies (not the thread's own later or earlier plain accesses beyond what the copies are
//!   ordered after) join the phase's clock. When a phase completes its clock is kept; a
//!   successful `test_wait`/`try_wait` (not `.relaxed`) of that phase joins it (an acquire).
//!   Clocks are cumulative: a phase's clock holds the arrivals of every earlier phase.

use std::collections::VecDeque;
use std::sync::Arc;

use super::{join, snapshot, Access, CtaRace, Kind, RaceOp, Sem};
use crate::race::vc::Vc;

/// Set in a thread id to name the thread's cp.async agent.
pub const AGENT: u32 = 1 << 31;

/// Completed phases whose clocks an mbarrier keeps (a wait for an older phase joins the
/// oldest kept).
const PHASES_KEPT: usize = 8;

/// One effect of an `mbarrier` instruction (or `cp.async.mbarrier.arrive`) on the mbarrier at
/// a shared offset, by a thread (linear in the CTA).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MbarEvent {
    /// `init` or `inval`.
    Reset(u64),
    /// `arrive` by a thread.
    Arrive(usize, u64),
    /// `cp.async.mbarrier.arrive` by a thread, whose this many pending copies complete first.
    CopiesArrive(usize, u64, usize),
    /// A thread's operation on the object itself (its 8 bytes; every mbarrier instruction
    /// and `cp.async.mbarrier.arrive`), before its effect; whether it may change the object
    /// (every operation but a wait).
    Touch(usize, u64, bool),
    /// The phase completed.
    PhaseDone(u64, u32),
    /// A thread's wait saw the phase complete.
    Waited(usize, u64, u32),
}

/// A copy issued and not yet waited for.
#[derive(Clone, Debug)]
pub(super) struct Copy {
    /// The issuing thread's clock at the issue.
    base: Arc<Vc>,
    own: u32,
    /// The agent's event of this copy.
    agent: u32,
}

/// The race detector's view of one mbarrier.
#[derive(Clone, Debug, Default)]
pub(super) struct MbarClock {
    /// The join of every releasing arrival so far.
    pub(super) arrivals: Vc,
    /// (phase, clock at its completion), oldest first.
    done: VecDeque<(u32, Arc<Vc>)>,
}

impl CtaRace {
    /// `cp.async` by thread `t` at `pc`: `src` is the global bytes read (`None` with
    /// src-size 0 or ignore-src), `dst` the shared offset and `len` the bytes written.
    pub fn cp_async(&mut self, t: usize, pc: u32, src: Option<(u64, u32)>, dst: u64, len: u32) {
        if t >= self.threads.len() {
            return;
        }
        let me = self.gtid(t);
        let th = &mut self.threads[t];
        th.agent_clk += 1;
        let agent = th.agent_clk;
        th.copies.push_back(Copy {
            base: th.base.clone(),
            own: th.own,
            agent,
        });
        let actor = Some((me | AGENT, agent));
        let weak = |kind| (kind, Sem::Weak, None);
        if let Some((addr, n)) = src {
            self.access_as(
                t,
                pc,
                (false, addr, n),
                Access::Read,
                weak(Kind::Read),
                actor,
                0,
            );
        }
        self.access_as(
            t,
            pc,
            (true, dst, len),
            Access::Write,
            weak(Kind::Write),
            actor,
            0,
        );
    }

    /// Thread `t` waited for its `n` oldest pending copies (`cp.async.wait_group`/`wait_all`):
    /// they are ordered before its later events.
    pub fn cp_async_waited(&mut self, t: usize, n: usize) {
        if let Some(c) = self.take_copies(t, n) {
            let me = self.gtid(t) | AGENT;
            let th = &mut self.threads[t];
            if th.base.get(me) < c.agent {
                Arc::make_mut(&mut th.base).raise(me, c.agent);
            }
        }
    }

    /// The newest of the `n` oldest pending copies of thread `t`, taken off its queue.
    fn take_copies(&mut self, t: usize, n: usize) -> Option<Copy> {
        let th = self.threads.get_mut(t)?;
        let mut last = None;
        for _ in 0..n {
            last = th.copies.pop_front().or(last);
        }
        last
    }

    /// `cp.async.mbarrier.arrive` by thread `t` on the mbarrier at `off`, once its `n`
    /// pending copies completed: the copies join the phase's clock.
    pub fn cp_async_arrive(&mut self, t: usize, off: u64, n: usize) {
        let Some(c) = self.take_copies(t, n) else {
            return;
        };
        let me = self.gtid(t);
        let m = self.mbars.entry(off).or_default();
        m.arrivals.join(&c.base);
        m.arrivals.raise(me, c.own);
        m.arrivals.raise(me | AGENT, c.agent);
    }

    /// What an `mbarrier` instruction at `pc` did, lane by lane, in order.
    pub fn mbarrier_events(&mut self, pc: u32, events: &[MbarEvent]) {
        for e in events {
            match *e {
                MbarEvent::Touch(t, off, w) => self.mbarrier_touch(t, pc, off, w),
                MbarEvent::Reset(off) => self.mbarrier_reset(off),
                MbarEvent::Arrive(t, off) => self.mbarrier_arrive(t, pc, off),
                MbarEvent::CopiesArrive(t, off, n) => self.cp_async_arrive(t, off, n),
                MbarEvent::PhaseDone(off, ph) => self.mbarrier_phase_done(off, ph),
                MbarEvent::Waited(t, off, ph) => self.mbarrier_waited(t, pc, off, ph),
            }
        }
    }

    /// Thread `t`'s access of the mbarrier object at `off` by the instruction at `pc`: a weak
    /// write for `init`/`inval`, a relaxed `.cta` atomic otherwise ([`RaceOp::mem`]); a wait
    /// only reads it.
    fn mbarrier_touch(&mut self, t: usize, pc: u32, off: u64, writes: bool) {
        let Some((kind, sem, scope)) = self.sh.ops.get(pc as usize).and_then(RaceOp::mem) else {
            return;
        };
        let a = match kind {
            Kind::Write => Access::Write,
            _ => Access::Rmw { wrote: writes },
        };
        self.access_as(t, pc, (true, off, 8), a, (kind, sem, scope), None, 0);
    }

    /// `mbarrier.init`/`inval` at `off`: its clocks start afresh.
    pub fn mbarrier_reset(&mut self, off: u64) {
        self.mbars.remove(&off);
    }

    /// `mbarrier.arrive` at `pc` by thread `t` on the mbarrier at `off` (a release unless
    /// `.relaxed`).
    pub fn mbarrier_arrive(&mut self, t: usize, pc: u32, off: u64) {
        let Some(&RaceOp::Mbarrier { release: true, .. }) = self.sh.ops.get(pc as usize) else {
            return;
        };
        if t >= self.threads.len() {
            return;
        }
        let me = self.gtid(t);
        let th = &mut self.threads[t];
        let snap = snapshot(th, me);
        th.own += 1;
        self.mbars.entry(off).or_default().arrivals.join(&snap);
        self.barriers_seen = true;
    }

    /// Phase `phase` of the mbarrier at `off` completed.
    pub fn mbarrier_phase_done(&mut self, off: u64, phase: u32) {
        let m = self.mbars.entry(off).or_default();
        let clock = Arc::new(m.arrivals.clone());
        if m.done.len() >= PHASES_KEPT {
            m.done.pop_front();
        }
        m.done.push_back((phase, clock));
    }

    /// A successful `test_wait`/`try_wait` at `pc` by thread `t` of completed phase `phase`
    /// of the mbarrier at `off` (an acquire unless `.relaxed`).
    pub fn mbarrier_waited(&mut self, t: usize, pc: u32, off: u64, phase: u32) {
        let Some(&RaceOp::Mbarrier { acquire: true, .. }) = self.sh.ops.get(pc as usize) else {
            return;
        };
        let Some(m) = self.mbars.get(&off) else {
            return;
        };
        // The phase's clock; for a phase older than those kept, the newest kept before it
        // (fewer arrivals: never an ordering that did not happen).
        let clock = m
            .done
            .iter()
            .rev()
            .find(|(p, _)| phase.wrapping_sub(*p) as i32 >= 0)
            .map(|(_, c)| c.clone());
        if let (Some(c), Some(th)) = (clock, self.threads.get_mut(t)) {
            join(th, &c);
        }
    }
}
