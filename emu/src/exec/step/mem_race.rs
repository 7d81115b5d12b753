//! The race detector's view of `ld`/`st`: each lane's access, with its space, size and
//! semantics, handed to `crate::race` (and accesses still pending in asynchronous copies).

use super::mem::*;
use super::Ctx;
use crate::exec::memory::{window_of, Window};
use crate::exec::program::AddrSpace;
use crate::race::cta::Access as RaceAccess;

/// `--race`: hands lane `lane`'s access at `loc` to the race detector (global and shared
/// memory only: local memory is private and parameters and constants are read-only).
#[cold]
pub(super) fn race_access(c: &mut Ctx<'_>, loc: &Loc<'_>, lane: usize, size: u32, a: RaceAccess) {
    let (shared, addr) = match *loc {
        Loc::Global(_, g) => (false, g),
        Loc::Shared(o) => (true, o),
        Loc::Peer(rank, o) => {
            super::cluster::race_peer(c, rank, o, lane, size, a);
            return;
        }
        Loc::Local(_) | Loc::Param(_) | Loc::Const(_) => return,
    };
    let (t, pc) = (c.ids.warp as usize * 32 + lane, c.pc);
    if let Some(r) = c.race.as_deref_mut() {
        r.access(t, pc, shared, addr, size, a);
    }
}

/// `--race`: hands lane `lane`'s element access of a warp-wide matrix instruction (`wmma.load`
/// / `wmma.store`, `ldmatrix`, `stmatrix`) at `addr` in `space` to the detector, once the
/// instruction has performed it (global, shared or generic addresses; others are ignored).
pub fn race_elem(
    c: &mut Ctx<'_>,
    space: AddrSpace,
    addr: u64,
    size: u32,
    lane: usize,
    write: bool,
) {
    if c.race.is_none() {
        return;
    }
    let (shared, at) = match space {
        AddrSpace::Shared => (true, c.own_shared(shared_wrap(addr))),
        AddrSpace::Global => (false, addr),
        AddrSpace::Generic => match window_of(addr) {
            Window::Shared(o) => (true, c.own_shared(o)),
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
    let (t, pc) = (c.ids.warp as usize * 32 + lane, c.pc);
    if let Some(r) = c.race.as_deref_mut() {
        r.access(t, pc, shared, at, size, a);
    }
}

/// `--race`: an access refused because a pending `cp.async` still writes its bytes, or
/// because the proxy checker found it unordered with an async-proxy copy of its bytes, races
/// with that copy; hands it to the detector so the report names the race beside the fault.
#[cold]
pub(super) fn race_pending(
    c: &mut Ctx<'_>,
    space: AddrSpace,
    addr: u64,
    size: u32,
    lane: usize,
    a: RaceAccess,
) {
    let off = match space {
        AddrSpace::Shared => c.own_shared(shared_wrap(addr)),
        AddrSpace::Generic => match window_of(addr) {
            Window::Shared(o) => c.own_shared(o),
            _ => return,
        },
        _ => return,
    };
    let write = a == RaceAccess::Write;
    let proxy = || {
        c.asyncs.tma.watch
            && super::tma_proxy::shared_access(c, lane, addr, off, u64::from(size), write).is_some()
    };
    if c.asyncs.overlapping(off, u64::from(size)).is_some() || proxy() {
        race_access(c, &Loc::Shared(off), lane, size, a);
    }
}

/// `--race`: hands a whole warp's scalar access (lanes `c.mask`, `size` bytes at `addrs[lane]`:
/// shared-memory offsets when `shared`, else global addresses) to the detector in one call,
/// for the `ld`/`st` fast paths.
#[inline]
pub(super) fn race_warp(
    c: &mut Ctx<'_>,
    shared: bool,
    addrs: &[u64; 32],
    size: u32,
    a: RaceAccess,
) {
    let (warp, pc, mask) = (c.ids.warp as usize, c.pc, c.mask);
    if let Some(r) = c.race.as_deref_mut() {
        r.access_warp(warp, pc, (shared, size), addrs, mask, a);
    }
}
