//! Tensor-core operations that read shared memory through matrix descriptors
//! (`wgmma.mma_async`, `tcgen05.mma`; docs/race.md, "Asynchronous matrix operations").
//!
//! Their operand reads are accesses of the async proxy, performed by a *tensor-core agent*: a
//! pseudo-thread with its own clock entry (the issuing thread's id with [`super::AGENT`] and
//! [`TC`] set), like the cp.async and bulk agents. The reads are weak, checked at the issue
//! (the earliest point the hardware may perform them) and ordered after the issuing threads'
//! earlier events, and before nothing of theirs:
//!
//! - `wgmma.mma_async` is executed by each warp of the warpgroup for its own rows of A and all
//!   of B, with the warp's 32 lanes converged (`.sync.aligned`): a warp's reads are ordered
//!   after every event of its lanes before the instruction (the lanes' program orders all
//!   contain it), and their agent is lane 0's. `wgmma.commit_group` closes the warp's group;
//!   `wgmma.wait_group N` orders the reads of every group but the `N` newest before the
//!   lanes' later events. Other warps are ordered after the reads only through a
//!   synchronisation after that wait.
//! - `tcgen05.mma` is issued by one thread; `tcgen05.commit` with an mbarrier makes the
//!   mbarrier's arrival wait for the thread's earlier tensor-core operations: their reads (and
//!   what the thread did before the last of them) join the phase's clock, so the threads that
//!   wait for the phase are ordered after them.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use super::{snapshot, Access, CtaRace, Kind, Sem, AGENT};
use crate::race::vc::Vc;

/// Set in a thread id (with [`super::AGENT`]) to name the thread's tensor-core agent.
pub const TC: u32 = 1 << 29;

/// Bytes per shadow access (shadow accesses name at most 255 bytes).
const CHUNK: u64 = 128;

/// The tensor-core agents of a CTA.
#[derive(Clone, Debug, Default)]
pub(super) struct TcState {
    /// Per thread (linear in the CTA): its agent's clock (one event per operation).
    clk: HashMap<usize, u32>,
    /// Per warp (`wgmma`): the newest operation not yet committed (0: none) and the newest
    /// operation of each committed group not yet waited for.
    groups: HashMap<usize, (u32, VecDeque<u32>)>,
    /// Per thread (`tcgen05.mma`): its clock and agent event at its latest issue.
    issued: HashMap<usize, (Arc<Vc>, u32)>,
}

impl CtaRace {
    /// The next event of thread `t`'s tensor-core agent.
    fn tc_event(&mut self, t: usize) -> u32 {
        let e = self.tc.clk.entry(t).or_default();
        *e += 1;
        *e
    }

    /// Reads of shared memory `runs` ((offset, bytes)) by the agent of thread `t` (ordered
    /// after `t`'s clock as it is now), as event `event`, for the instruction at `pc`.
    fn tc_reads(&mut self, t: usize, pc: u32, runs: &[(u64, u64)], event: u32) {
        let actor = Some((self.gtid(t) | AGENT | TC, event));
        for &(off, len) in runs {
            let mut at = off;
            let end = off.saturating_add(len);
            while at < end {
                let n = (end - at).min(CHUNK) as u32;
                let what = (Kind::Read, Sem::Weak, None);
                self.access_as(t, pc, (true, at, n), Access::Read, what, actor, 0);
                at += u64::from(n);
            }
        }
    }

    /// `wgmma.mma_async` at `pc` by lanes `lanes` of warp `warp`, reading shared memory
    /// `runs` ((offset, bytes)) through its descriptors.
    pub fn wgmma_reads(&mut self, warp: usize, lanes: u32, pc: u32, runs: &[(u64, u64)]) {
        let t0 = warp * 32;
        if t0 >= self.threads.len() || lanes == 0 {
            return;
        }
        // The reads are ordered after every lane's earlier events: check them with the join
        // of the lanes' clocks in lane 0's place, then put lane 0's own clock back.
        let mut joined = Vc::default();
        for l in 0..32 {
            let t = t0 + l;
            if lanes & (1 << l) != 0 && t < self.threads.len() {
                let me = self.gtid(t);
                joined.join(&snapshot(&self.threads[t], me));
            }
        }
        let saved = std::mem::replace(&mut self.threads[t0].base, Arc::new(joined));
        let event = self.tc_event(t0);
        self.tc_reads(t0, pc, runs, event);
        self.threads[t0].base = saved;
        self.threads[t0].acquired = None;
        self.threads[t0].last_read.clean_at = None;
        self.tc.groups.entry(warp).or_default().0 = event;
    }

    /// `wgmma.commit_group` by warp `warp`.
    pub fn wgmma_commit(&mut self, warp: usize) {
        let g = self.tc.groups.entry(warp).or_default();
        let open = std::mem::take(&mut g.0);
        g.1.push_back(open);
    }

    /// `wgmma.wait_group n` by lanes `lanes` of warp `warp`: the reads of every group but the
    /// `n` newest are ordered before the lanes' later events.
    pub fn wgmma_waited(&mut self, warp: usize, lanes: u32, n: usize) {
        let t0 = warp * 32;
        if t0 >= self.threads.len() {
            return;
        }
        let mut newest = 0;
        if let Some(g) = self.tc.groups.get_mut(&warp) {
            while g.1.len() > n {
                newest = newest.max(g.1.pop_front().unwrap_or(0));
            }
        }
        if newest == 0 {
            return;
        }
        let agent = self.gtid(t0) | AGENT | TC;
        for l in 0..32 {
            let t = t0 + l;
            if lanes & (1 << l) == 0 || t >= self.threads.len() {
                continue;
            }
            let th = &mut self.threads[t];
            if th.base.get(agent) < newest {
                Arc::make_mut(&mut th.base).raise(agent, newest);
            }
        }
    }

    /// `tcgen05.mma` at `pc` issued by thread `t`, reading shared memory `runs` ((offset,
    /// bytes)) through its descriptors.
    pub fn tcgen05_mma_reads(&mut self, t: usize, pc: u32, runs: &[(u64, u64)]) {
        if t >= self.threads.len() {
            return;
        }
        let event = self.tc_event(t);
        self.tc_reads(t, pc, runs, event);
        let me = self.gtid(t);
        let snap = snapshot(&self.threads[t], me);
        self.tc.issued.insert(t, (snap, event));
    }

    /// `tcgen05.commit` by thread `t` arriving on the mbarrier at shared offset `off` once
    /// its tensor-core operations complete: they join the phase's clock.
    pub fn tcgen05_commit(&mut self, t: usize, off: u64) {
        let Some((base, event)) = self.tc.issued.get(&t).cloned() else {
            return;
        };
        let agent = self.gtid(t) | AGENT | TC;
        let m = self.mbars.entry(off).or_default();
        m.arrivals.join(&base);
        m.arrivals.raise(agent, event);
        self.barriers_seen = true;
    }
}
