//! Bulk and tensor copies (`cp.async.bulk`, `cp.reduce.async.bulk`, `cp.async.bulk.tensor`):
//! accesses of the async proxy, performed by the issuing thread's *bulk agent* (a pseudo-thread
//! beside its `cp.async` agent, docs/race.md). A copy's reads and writes are checked when it is
//! issued (the earliest point the async proxy may perform them), ordered after everything the
//! thread did before; a copy that completes on an mbarrier (`.mbarrier::complete_tx::bytes`)
//! joins the phase's clock, so the threads that wait for that phase are ordered after its
//! writes; a copy of a bulk group is ordered before the thread's events after a
//! `cp.async.bulk.wait_group{.read}` that covers its group.

use std::sync::Arc;

use models::vocab::Scope;

use super::{Access, CtaRace, Kind, Sem};

/// Set in a thread id (with [`super::AGENT`]) to name the thread's bulk agent.
pub const BULK: u32 = 1 << 30;

/// Bytes per shadow access of a long copy (shadow accesses name at most 255 bytes).
const CHUNK: u64 = 128;

/// One side of a bulk copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BulkAccess {
    /// Shared memory (an offset in the CTA's), else global.
    pub shared: bool,
    /// First byte.
    pub addr: u64,
    /// Bytes.
    pub len: u64,
    /// A write (else a read).
    pub write: bool,
    /// A reduction's element-wise read-modify-write (`cp.reduce.async.bulk`): a relaxed
    /// `.gpu` atomic.
    pub reduce: bool,
    /// A fingerprint of the bytes a write left ([`fingerprint`]; 0: not known).
    pub fp: u32,
}

/// The fingerprint of written bytes kept with a write (FNV-1a; never 0, which means "not
/// known").
pub fn fingerprint(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in bytes {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    h.max(1)
}

/// A thread's bulk groups (`cp.async.bulk.commit_group` / `wait_group`).
#[derive(Clone, Debug, Default)]
pub(super) struct BulkGroups {
    /// The bulk agent's clock (one event per copy).
    clk: u32,
    /// The newest copy not yet committed to a group (0: none).
    open: u32,
    /// Per committed group not yet waited for, its newest copy (0: an empty group).
    groups: std::collections::VecDeque<u32>,
}

impl CtaRace {
    /// A bulk or tensor copy issued by thread `t` at `pc`, with its accesses; `mbar`: the
    /// shared offset of the mbarrier it completes on, else it belongs to the thread's bulk
    /// groups.
    pub fn bulk_copy(&mut self, t: usize, pc: u32, accesses: &[BulkAccess], mbar: Option<u64>) {
        if t >= self.threads.len() {
            return;
        }
        let me = self.gtid(t);
        let th = &mut self.threads[t];
        th.bulk.clk += 1;
        let event = th.bulk.clk;
        let (base, own) = (th.base.clone(), th.own);
        if mbar.is_none() {
            th.bulk.open = event;
        }
        let actor = Some((me | super::AGENT | BULK, event));
        for a in accesses {
            let (kind, sem, scope, acc) = if a.reduce {
                let acc = Access::Rmw { wrote: a.write };
                (Kind::Atomic, Sem::Relaxed, Some(Scope::Gpu), acc)
            } else if a.write {
                (Kind::Write, Sem::Weak, None, Access::Write)
            } else {
                (Kind::Read, Sem::Weak, None, Access::Read)
            };
            let mut at = a.addr;
            let end = a.addr.saturating_add(a.len);
            while at < end {
                let n = (end - at).min(CHUNK) as u32;
                let fp = if a.write { a.fp } else { 0 };
                self.access_as(t, pc, (a.shared, at, n), acc, (kind, sem, scope), actor, fp);
                at += u64::from(n);
            }
        }
        if let Some(off) = mbar {
            let m = self.mbars.entry(off).or_default();
            m.arrivals.join(&base);
            m.arrivals.raise(me, own);
            m.arrivals.raise(me | super::AGENT | BULK, event);
        }
    }

    /// `cp.async.bulk.commit_group` by thread `t`.
    pub fn bulk_commit(&mut self, t: usize) {
        if let Some(th) = self.threads.get_mut(t) {
            let open = std::mem::take(&mut th.bulk.open);
            th.bulk.groups.push_back(open);
        }
    }

    /// `cp.async.bulk.wait_group{.read} n` by thread `t`: the copies of every group but the
    /// `n` newest are ordered before its later events.
    pub fn bulk_waited(&mut self, t: usize, n: usize) {
        if t >= self.threads.len() {
            return;
        }
        let me = self.gtid(t) | super::AGENT | BULK;
        let th = &mut self.threads[t];
        let mut newest = 0;
        while th.bulk.groups.len() > n {
            newest = newest.max(th.bulk.groups.pop_front().unwrap_or(0));
        }
        if newest > 0 && th.base.get(me) < newest {
            Arc::make_mut(&mut th.base).raise(me, newest);
        }
    }
}
