//! The hooks of asynchronous operations: a `cp.async` copy issued and waited for, a bulk or
//! tensor copy issued with the bytes it reads and writes and the mbarrier it completes on,
//! bulk groups committed and waited for, the shared-memory operand reads of the asynchronous
//! tensor-core operations (`wgmma.mma_async`, `tcgen05.mma`) with their commits and waits,
//! and the async proxy's accesses, fences and tensor-map uses.
//!
//! Subscribers: the race detector (every event, each asynchronous operation through its agent:
//! docs/race.md), and the proxy checker (`--proxy-check`: async-proxy reads of shared bytes
//! written through the generic proxy without `fence.proxy.async`, async-proxy writes whose
//! completion no thread observed yet, async reads still in progress, and tensor maps written
//! through the generic proxy and not yet acquired).

use super::events::AsyncAccess;
use crate::cluster::dsmem::decode;
use crate::exec::ctx::Ctx;
use crate::exec::fault::LaneFault;
use crate::race::cta::BulkAccess;

/// Adds `bytes` at shared offset `off` to `runs`, merged with the last run when contiguous.
pub fn add_run(runs: &mut Vec<(u64, u64)>, off: u64, bytes: u64) {
    match runs.last_mut() {
        Some((o, n)) if *o + *n == off => *n += bytes,
        Some((o, n)) if *o <= off && off + bytes <= *o + *n => {}
        _ => runs.push((off, bytes)),
    }
}

/// The race detector's name of one side of a copy.
fn bulk(a: &AsyncAccess) -> BulkAccess {
    BulkAccess {
        shared: a.shared,
        addr: a.addr,
        len: a.len,
        write: a.write,
        reduce: a.reduce,
        fp: a.fp,
    }
}

/// A cheap test, made once per instruction, that an async-proxy read of shared memory by that
/// instruction passes every check: the bounds of the CTA's shared memory, the proxy checker
/// and the pending `cp.async` copies. `clear` is conservative: `false` says only that the
/// read must go through the full checks ([`Ctx::before_async_read`] and the address
/// resolution), which report any fault.
pub(crate) struct AsyncReadScreen<'c> {
    /// No generic write is unfenced (or the proxy check is off).
    generic_fenced: bool,
    proxy: &'c crate::exec::proxy_check::ProxyState,
    copies: &'c crate::async_copy::pending::PendingCopies,
    shared_len: u64,
}

impl AsyncReadScreen<'_> {
    /// Whether a read of `size` bytes at the CTA-local shared offset `off` passes every check.
    /// Offsets in the cluster window (`.shared::cluster` addresses) are never clear.
    #[inline]
    pub(crate) fn clear(&self, off: u64, size: u64) -> bool {
        self.generic_fenced
            && off < crate::cluster::dsmem::CLUSTER_WINDOW
            && off + size <= self.shared_len
            && !self.copies.may_touch(off, size)
            && !self.proxy.unobserved_write_overlaps(off, off + size)
    }
}

impl Ctx<'_> {
    /// Whether an observer wants asynchronous operations' accesses (instructions skip
    /// describing them otherwise).
    #[inline]
    pub fn observes_async(&self) -> bool {
        self.obs.race.is_some()
    }

    /// Thread `thread` issued a `cp.async` at `pc` of `len` bytes into shared offset `dst`,
    /// reading `read` (global address and bytes; `None` when it reads nothing).
    pub fn after_copy_issued(
        &mut self,
        thread: usize,
        pc: u32,
        read: Option<(u64, u32)>,
        dst: u64,
        len: u32,
    ) {
        if let Some(race) = self.obs.race.as_deref_mut() {
            race.cp_async(thread, pc, read, dst, len);
        }
    }

    /// Thread `thread`'s wait (`cp.async.wait_group`, `wait_all`) delivered `n` of its copies.
    pub fn after_copies_waited(&mut self, thread: usize, n: usize) {
        if let Some(r) = self.obs.race.as_deref_mut() {
            r.cp_async_waited(thread, n);
        }
    }

    /// A bulk or tensor copy issued by `lane` with these accesses, completing on the mbarrier
    /// at shared offset `mbar` when given. Shared accesses may name a peer CTA's shared memory
    /// (`.shared::cluster` addresses): each CTA's are checked against that CTA's history, and
    /// the mbarrier is the one at its offset in each CTA the copy writes to (docs/race.md,
    /// "Clusters").
    pub fn after_bulk_copy(&mut self, lane: usize, accesses: &[AsyncAccess], mbar: Option<u64>) {
        if self.obs.race.is_none() {
            return;
        }
        let own = self.cluster.rank();
        // Accesses by CTA rank (global ones go with the executing CTA's).
        let mut groups: Vec<(u32, Vec<BulkAccess>, bool)> = vec![(own, Vec::new(), false)];
        for a in accesses {
            let (rank, a) = match (a.shared, decode(a.addr)) {
                (true, Some((r, o))) => (r, BulkAccess { addr: o, ..bulk(a) }),
                _ => (own, bulk(a)),
            };
            let k = match groups.iter().position(|g| g.0 == rank) {
                Some(k) => k,
                None => {
                    groups.push((rank, Vec::new(), false));
                    groups.len() - 1
                }
            };
            groups[k].1.push(a);
            groups[k].2 |= a.shared && a.write;
        }
        let (t, pc) = (self.ids.warp as usize * 32 + lane, self.pc);
        for (rank, acc, dest) in groups {
            // The mbarrier belongs to the CTAs the copy writes to; a copy with one is no bulk
            // group's, in the other CTAs too (u64::MAX: an offset no mbarrier has).
            let m = mbar.map(|o| if dest { o } else { u64::MAX });
            if rank != own {
                self.peer_lent(rank);
            }
            if let Some(r) = self.obs.race.as_deref_mut() {
                r.bulk_copy(t, pc, &acc, m);
            }
            if rank != own {
                self.peer_lent(rank);
            }
        }
    }

    /// `cp.async.bulk.commit_group` by `lane`.
    pub fn after_bulk_commit(&mut self, lane: usize) {
        let t = self.ids.warp as usize * 32 + lane;
        self.asyncs.tma.commit(t as u32);
        if let Some(r) = self.obs.race.as_deref_mut() {
            r.bulk_commit(t);
        }
    }

    /// `cp.async.bulk.wait_group{.read} n` by `lane`.
    pub fn after_bulk_wait(&mut self, lane: usize, n: usize) {
        let t = self.ids.warp as usize * 32 + lane;
        self.asyncs.tma.wait(t as u32, n);
        if let Some(r) = self.obs.race.as_deref_mut() {
            r.bulk_waited(t, n);
        }
    }

    /// The executing warp's `wgmma.mma_async` read `runs` of shared memory.
    pub fn after_wgmma_issued(&mut self, runs: &[(u64, u64)]) {
        let (warp, lanes, pc) = (self.ids.warp as usize, self.mask, self.pc);
        if let Some(r) = self.obs.race.as_deref_mut() {
            r.wgmma_reads(warp, lanes, pc, runs);
        }
    }

    /// The executing warp's `wgmma.commit_group`.
    pub fn after_wgmma_commit(&mut self) {
        let warp = self.ids.warp as usize;
        if let Some(r) = self.obs.race.as_deref_mut() {
            r.wgmma_commit(warp);
        }
    }

    /// The executing warp's `wgmma.wait_group n`.
    pub fn after_wgmma_wait(&mut self, n: usize) {
        let (warp, lanes) = (self.ids.warp as usize, self.mask);
        if let Some(r) = self.obs.race.as_deref_mut() {
            r.wgmma_waited(warp, lanes, n);
        }
    }

    /// `tcgen05.mma` issued by `lane`, reading `runs` of shared memory.
    pub fn after_tcgen05_mma_issued(&mut self, lane: usize, runs: &[(u64, u64)]) {
        let (t, pc) = (self.ids.warp as usize * 32 + lane, self.pc);
        if let Some(r) = self.obs.race.as_deref_mut() {
            r.tcgen05_mma_reads(t, pc, runs);
        }
    }

    /// `tcgen05.commit` by `lane` arriving on the mbarrier at shared offset `off`.
    pub fn after_tcgen05_commit(&mut self, lane: usize, off: u64) {
        let t = self.ids.warp as usize * 32 + lane;
        if let Some(r) = self.obs.race.as_deref_mut() {
            r.tcgen05_commit(t, off);
        }
    }

    /// The screen for this instruction's async-proxy reads of shared memory.
    #[inline]
    pub(crate) fn async_read_screen(&self) -> AsyncReadScreen<'_> {
        AsyncReadScreen {
            generic_fenced: self.asyncs.tma.generic_writes_fenced(),
            proxy: &self.asyncs.tma,
            copies: &self.asyncs.copies,
            shared_len: self.shared.data.len() as u64,
        }
    }

    /// Before an async-proxy read (`what`) by `lane` of `size` bytes of shared memory at
    /// `addr`: a fault when generic writes of them were not fenced with `fence.proxy.async`.
    #[inline]
    pub fn before_async_read(
        &self,
        lane: usize,
        addr: u64,
        size: u64,
        what: &str,
    ) -> Option<LaneFault> {
        self.asyncs
            .tma
            .async_read(&self.prog.info, lane, addr, size, what)
    }

    /// Before a copy by `lane` uses the tensor map at global address `addr`: a fault when it
    /// was written through the generic proxy and not acquired since.
    #[inline]
    pub fn before_tensormap_use(&self, lane: usize, addr: u64) -> Option<LaneFault> {
        self.asyncs.tma.tmap_use(&self.prog.info, lane, addr)
    }

    /// An async-proxy write of shared `[lo, hi)` completing on the mbarrier at `mbar` in
    /// `phase`.
    pub fn after_async_write(&mut self, lo: u64, hi: u64, mbar: u64, phase: u32) {
        let pc = self.pc;
        self.asyncs.tma.async_write(lo, hi, pc, mbar, phase);
    }

    /// An async-proxy read of shared `[lo, hi)` by `thread`, in progress until its bulk group
    /// is waited for.
    pub fn after_async_read(&mut self, lo: u64, hi: u64, thread: u32) {
        let pc = self.pc;
        self.asyncs.tma.async_read_pending(lo, hi, pc, thread);
    }

    /// The tensor map at global address `addr` was written through the generic proxy.
    pub fn after_tensormap_write(&mut self, addr: u64) {
        let pc = self.pc;
        self.asyncs.tma.tmap_written(addr, pc);
    }

    /// `fence.proxy.async`: generic writes so far are ordered with later async-proxy accesses.
    pub fn after_proxy_fence(&mut self) {
        self.asyncs.tma.fence_async();
    }

    /// `fence.proxy.tensormap::generic.acquire` of the tensor map at `addr` (`None`: all).
    pub fn after_tensormap_acquire(&mut self, addr: Option<u64>) {
        self.asyncs.tma.tmap_acquired(addr);
    }
}
