//! The access hooks: what the memory service and the instructions report of each lane's
//! access (a load, a store, an atomic, an element of a warp-wide matrix move, an access of a
//! peer CTA's shared memory, an access refused with a fault), and the L1 model's service of
//! global memory.
//!
//! Subscribers: the race detector (global and shared memory; local memory is private and
//! parameters and constants are read-only), the nc check (global reads through
//! `ld.global.nc`, and every write to global memory), and the L1 model (global loads and
//! stores that use it; an acquire or an atomic invalidates the SM's lines).

use super::events::AccessKind;
use crate::exec::address::{load_at, shared_wrap, Loc};
use crate::exec::ctx::{for_lanes, Ctx};
use crate::exec::fault::LaneFault;
use crate::exec::l1::L1Use;
use crate::exec::memory::{window_of, Window};
use crate::exec::nc_check::NcAccess;
use crate::exec::program::AddrSpace;
use crate::race::cta::Access as RaceAccess;

/// The race detector's name of an access.
#[inline(always)]
fn race_kind(k: AccessKind) -> RaceAccess {
    match k {
        AccessKind::Read => RaceAccess::Read,
        AccessKind::Write => RaceAccess::Write,
        AccessKind::Rmw { wrote } => RaceAccess::Rmw { wrote },
    }
}

impl Ctx<'_> {
    /// Whether an observer wants every access (instructions skip describing accesses
    /// otherwise).
    #[inline(always)]
    pub fn observes_accesses(&self) -> bool {
        self.obs.race.is_some()
    }

    /// Whether the L1 model serves global memory (the global fast paths step aside for it).
    #[inline(always)]
    pub fn caches_global(&self) -> bool {
        self.obs.l1.is_some()
    }

    /// Lane `lane`'s access at `address` for the nc check.
    fn nc_access(&self, lane: usize, address: u64) -> NcAccess {
        NcAccess {
            pc: self.pc,
            cta: self.launch.ctaid,
            warp: self.ids.warp,
            lane: lane as u32,
            step: self.clock.wrapping_add(self.cta_step_offset),
            tid: [
                self.ids.tid[0][lane],
                self.ids.tid[1][lane],
                self.ids.tid[2][lane],
            ],
            address,
        }
    }

    /// Loads `size` bytes at `loc` for `lane`: from the SM's L1 when the L1 model is on and
    /// the load uses it (`cache`), else from memory.
    #[inline]
    pub(crate) fn load_through_caches(
        &self,
        loc: &Loc<'_>,
        size: u32,
        lane: usize,
        cache: L1Use,
    ) -> u64 {
        match (self.obs.l1, cache, loc) {
            (Some(l1), L1Use::Load(op), Loc::Global(r, ga)) => {
                l1.load(self.cta_linear(), r, *ga, size, op)
            }
            _ => load_at(self, loc, size, lane),
        }
    }

    /// After lane `lane` read `size` bytes at `loc` (`nc`: through `ld.global.nc`).
    #[inline]
    pub(crate) fn after_read(&mut self, loc: &Loc<'_>, lane: usize, size: u32, nc: bool) {
        if let (true, Some(t), Loc::Global(_, ga)) = (nc, self.obs.nc, loc) {
            t.nc_read(self.nc_access(lane, *ga), size);
        }
        if self.obs.race.is_some() {
            self.race_access(loc, lane, size, AccessKind::Read);
        }
    }

    /// Before lane `lane` writes `size` bytes at `loc`.
    #[inline]
    pub(crate) fn before_write(&mut self, loc: &Loc<'_>, lane: usize, size: u32) {
        if let (Some(t), Loc::Global(_, ga)) = (self.obs.nc, loc) {
            t.write(self.nc_access(lane, *ga), size);
        }
        if self.obs.race.is_some() {
            self.race_access(loc, lane, size, AccessKind::Write);
        }
    }

    /// After `v` (`size` bytes) was stored at `loc`: the L1 model's write path, when the
    /// store uses it (`cache`).
    #[inline]
    pub(crate) fn after_store(&self, loc: &Loc<'_>, size: u32, v: u64, cache: L1Use) {
        if let (Some(l1), L1Use::Store(op), Loc::Global(_, ga)) = (self.obs.l1, cache, loc) {
            l1.store(self.cta_linear(), *ga, size, v, op);
        }
    }

    /// After a load whose semantics acquire (`cache` says so): the SM's L1 lines may be stale.
    #[inline]
    pub fn after_acquire(&self, cache: L1Use) {
        if let (Some(l1), L1Use::Acquire) = (self.obs.l1, cache) {
            l1.invalidate(self.cta_linear());
        }
    }

    /// Lane `lane`'s access of `size` bytes at `addr` in `space` was refused with a fault. An
    /// access refused because a pending `cp.async` still writes its bytes, or because the
    /// proxy checker found it unordered with an async-proxy copy of its bytes, races with that
    /// copy: the race detector is told, so that its report names the race beside the fault.
    #[cold]
    pub fn refused_access(
        &mut self,
        space: AddrSpace,
        addr: u64,
        size: u32,
        lane: usize,
        kind: AccessKind,
    ) {
        if self.obs.race.is_none() {
            return;
        }
        let off = match space {
            AddrSpace::Shared => self.own_shared(shared_wrap(addr)),
            AddrSpace::Generic => match window_of(addr) {
                Window::Shared(o) => self.own_shared(o),
                _ => return,
            },
            _ => return,
        };
        let write = kind == AccessKind::Write;
        let proxy = || {
            self.asyncs.tma.watch
                && self
                    .asyncs
                    .tma
                    .shared_access(
                        &self.prog.info,
                        self.pc,
                        lane,
                        addr,
                        off,
                        u64::from(size),
                        write,
                    )
                    .is_some()
        };
        if self.asyncs.overlapping(off, u64::from(size)).is_some() || proxy() {
            self.race_access(&Loc::Shared(off), lane, size, kind);
        }
    }

    /// Before lane `lane` accesses `size` bytes at offset `off` of the CTA's shared memory
    /// (`addr` as the lane wrote it) while asynchronous operations are pending: the proxy
    /// checker's fault (a generic access unordered with an async-proxy access of the bytes),
    /// or `cp.async`'s (bytes a pending copy still writes).
    #[cold]
    pub fn before_shared_access(
        &self,
        lane: usize,
        addr: u64,
        off: u64,
        size: u64,
        write: bool,
    ) -> Option<LaneFault> {
        if self.asyncs.tma.watch {
            let (info, pc) = (&self.prog.info, self.pc);
            if let Some(f) = self
                .asyncs
                .tma
                .shared_access(info, pc, lane, addr, off, size, write)
            {
                return Some(f);
            }
        }
        crate::async_copy::access_check::pending_fault(self, lane, addr, off, size, write)
    }

    /// Lane `lane`'s access at `loc` for the race detector (global and shared memory only).
    #[cold]
    fn race_access(&mut self, loc: &Loc<'_>, lane: usize, size: u32, kind: AccessKind) {
        let (shared, addr) = match *loc {
            Loc::Global(_, g) => (false, g),
            Loc::Shared(o) => (true, o),
            Loc::Peer(rank, o) => {
                self.peer_access(rank, o, lane, size, kind);
                return;
            }
            Loc::Local(_) | Loc::Param(_) | Loc::Const(_) => return,
        };
        let (t, pc) = (self.ids.warp as usize * 32 + lane, self.pc);
        if let Some(r) = self.obs.race.as_deref_mut() {
            r.access(t, pc, shared, addr, size, race_kind(kind));
        }
    }

    /// A whole warp's scalar access (lanes `mask`, `size` bytes at `addrs[lane]`: shared-memory
    /// offsets when `shared`, else global addresses), for the `ld`/`st` fast paths.
    #[inline]
    pub fn after_warp_access(
        &mut self,
        shared: bool,
        addrs: &[u64; 32],
        size: u32,
        kind: AccessKind,
    ) {
        let (warp, pc, mask) = (self.ids.warp as usize, self.pc, self.mask);
        if let Some(r) = self.obs.race.as_deref_mut() {
            r.access_warp(warp, pc, (shared, size), addrs, mask, race_kind(kind));
        }
    }

    /// Before a whole warp writes `size` bytes at the global addresses `addrs[lane]` (the
    /// global store fast path).
    #[inline]
    pub fn before_warp_global_write(&self, addrs: &[u64; 32], size: u32) {
        if let Some(t) = self.obs.nc {
            for_lanes(self.mask, |l| t.write(self.nc_access(l, addrs[l]), size));
        }
    }

    /// Lane `lane`'s element access of a warp-wide matrix instruction (`wmma.load` /
    /// `wmma.store`, `ldmatrix`, `stmatrix`) at `addr` in `space`, once the instruction has
    /// performed it (global, shared or generic addresses; others are ignored).
    pub fn after_elem_access(
        &mut self,
        space: AddrSpace,
        addr: u64,
        size: u32,
        lane: usize,
        write: bool,
    ) {
        if self.obs.race.is_none() {
            return;
        }
        let (shared, at) = match space {
            AddrSpace::Shared => (true, self.own_shared(shared_wrap(addr))),
            AddrSpace::Global => (false, addr),
            AddrSpace::Generic => match window_of(addr) {
                Window::Shared(o) => (true, self.own_shared(o)),
                Window::Global(g) => (false, g),
                _ => return,
            },
            _ => return,
        };
        let a = if write {
            RaceAccess::Write
        } else {
            RaceAccess::Read
        };
        let (t, pc) = (self.ids.warp as usize * 32 + lane, self.pc);
        if let Some(r) = self.obs.race.as_deref_mut() {
            r.access(t, pc, shared, at, size, a);
        }
    }

    /// Before lane `lane`'s atomic at global address `addr` (`size` bytes).
    #[inline]
    pub fn before_global_rmw(&self, lane: usize, addr: u64, size: u32) {
        if let Some(t) = self.obs.nc {
            t.write(self.nc_access(lane, addr), size);
        }
    }

    /// After lane `lane`'s atomic at `addr` (a shared offset when `shared`, else global),
    /// which changed memory when `wrote`.
    #[inline]
    pub fn after_rmw(&mut self, lane: usize, shared: bool, addr: u64, size: u32, wrote: bool) {
        let (t, pc) = (self.ids.warp as usize * 32 + lane, self.pc);
        if let Some(r) = self.obs.race.as_deref_mut() {
            r.access(t, pc, shared, addr, size, RaceAccess::Rmw { wrote });
        }
    }

    /// After an atomic on global memory: atomics act at L2, so the SM's L1 lines may now be
    /// stale for this thread.
    #[inline]
    pub fn after_global_rmw(&self) {
        if let Some(l1) = self.obs.l1 {
            l1.invalidate(self.cta_linear());
        }
    }

    /// Lane `lane`'s access of `size` bytes at offset `o` of CTA `rank`'s shared memory (a
    /// peer's, through a `.shared::cluster` address), checked against that CTA's history.
    #[cold]
    pub fn peer_access(&mut self, rank: u32, o: u64, lane: usize, size: u32, kind: AccessKind) {
        if self.obs.race.is_none() {
            return;
        }
        let own = rank == self.cluster.rank();
        if !own {
            self.peer_lent(rank);
        }
        let (t, pc) = (self.ids.warp as usize * 32 + lane, self.pc);
        if let Some(r) = self.obs.race.as_deref_mut() {
            r.access(t, pc, true, o, size, race_kind(kind));
        }
        if !own {
            self.peer_lent(rank);
        }
    }

    /// CTA `rank`'s shared memory and mbarriers are lent to the executing instruction (calling
    /// it again gives them back): the race detector lends that CTA's shadow and mbarrier
    /// clocks too, so that accesses to its shared memory meet its history (docs/race.md,
    /// "Clusters").
    pub fn peer_lent(&mut self, rank: u32) {
        if let Some(me) = self.obs.race.as_deref_mut() {
            if let Some(peer) = self.cluster.race(rank) {
                me.swap_memory(peer);
            }
        }
    }
}
