//! Memory instructions: `ld`, `ldu` and `st` (moves, `cvta` and the hints are in `mov_cvta`,
//! the specialised fast paths in `mem_fast`, the race detector's view in `mem_race`).
//!
//! Every access is checked: it must be aligned to its size (the whole vector for `.v2/.v4`),
//! and lie inside an allocation or window; otherwise the lane faults with the address.
//! Loads of signed types sign-extend into wider registers, others zero-extend; stores write
//! the low bytes of wider registers (PTX ISA "ld", "st", relaxed type-checking rules).
//!
//! A `.shared` state-space address is 32 bits wide: `base + offset` is taken modulo 2³², as
//! the hardware computes it (nvcc emits `[%r+68]` with `%r` briefly negative, e.g. in
//! Rodinia's needleman-wunsch). Generic addresses are 64-bit and do not wrap.

use super::{for_lanes, Ctx, FULL};
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::l1::L1Use;
use crate::exec::memory::{window_of, Region, Window};
use crate::exec::program::{AddrBase, AddrSpace, DAddr, DInstr, Dst, Extra, Flow, MemAccess};
use crate::race::cta::Access as RaceAccess;

pub use super::mem_fast::{
    fast_path, ld_global, ld_param_uniform, ld_shared, st_global, st_shared,
};
pub use super::mem_race::race_elem;
pub(super) use super::mem_race::*;
pub use super::mov_cvta::{
    createpolicy, cvta_from_generic, cvta_to_generic, fence, isspacep, mov, mov_pack, mov_unpack,
    nop,
};

type R = Result<Flow, LaneFault>;

/// A resolved memory location.
pub(super) enum Loc<'g> {
    Global(&'g Region, u64),
    Shared(u64),
    /// Bytes of another CTA of the cluster: its rank and offset.
    Peer(u32, u64),
    Local(u64),
    Param(u64),
    Const(u64),
}

pub(super) fn space_name(s: AddrSpace) -> &'static str {
    match s {
        AddrSpace::Generic => "generic",
        AddrSpace::Global => "global",
        AddrSpace::Shared => "shared",
        AddrSpace::Local => "local",
        AddrSpace::KernelParam => "param",
        AddrSpace::Const => "const",
    }
}

pub(super) fn oob(space: &str, size: u32, detail: String, lane: usize, addr: u64) -> LaneFault {
    LaneFault {
        kind: FaultKind::OutOfBounds {
            space: space.to_string(),
            size,
            detail,
        },
        lane: Some(lane as u32),
        address: Some(addr),
    }
}

/// The address of a lane for a decoded address (before the element offset).
#[inline(always)]
pub(crate) fn lane_addr(c: &Ctx<'_>, a: &DAddr, lane: usize) -> u64 {
    let base = match a.base {
        AddrBase::Reg(slot) => c.vals[slot as usize * 32 + lane],
        AddrBase::Fixed(v) => v,
        AddrBase::Frame(off) => c.ids.frame_base[lane] + off,
    };
    base.wrapping_add(a.offset as u64)
}

/// Resolves `addr` in `space` for `size` bytes for one lane, checking bounds and alignment.
#[inline]
pub(super) fn resolve<'g>(
    c: &Ctx<'g>,
    space: AddrSpace,
    addr: u64,
    size: u32,
    align: u32,
    lane: usize,
    write: bool,
) -> Result<Loc<'g>, LaneFault> {
    let addr = match space {
        AddrSpace::Shared => shared_wrap(addr),
        AddrSpace::Generic
        | AddrSpace::Global
        | AddrSpace::Local
        | AddrSpace::KernelParam
        | AddrSpace::Const => addr,
    };
    if align > 1 && !addr.is_multiple_of(u64::from(align)) {
        return Err(LaneFault {
            kind: FaultKind::Misaligned { align },
            lane: Some(lane as u32),
            address: Some(addr),
        });
    }
    let (space, off) = match space {
        AddrSpace::Generic => match window_of(addr) {
            Window::Shared(o) => (AddrSpace::Shared, o),
            Window::Local(o) => (AddrSpace::Local, o),
            Window::Const(o) => (AddrSpace::Const, o),
            Window::Param(o) => (AddrSpace::KernelParam, o),
            Window::Global(g) => (AddrSpace::Global, g),
        },
        s => (s, addr),
    };
    let off = if space == AddrSpace::Shared {
        c.own_shared(off)
    } else {
        off
    };
    let sz = u64::from(size);
    match space {
        AddrSpace::Global | AddrSpace::Generic => match c.global.find(off, sz) {
            Some(r) => Ok(Loc::Global(r, off)),
            None => Err(oob(
                "global",
                size,
                c.global.explain_miss(off, sz),
                lane,
                addr,
            )),
        },
        AddrSpace::Shared => {
            if c.asyncs.has_pending() {
                if let Some(f) = super::async_copy::pending_fault(c, lane, addr, off, sz, write) {
                    return Err(f);
                }
            }
            if c.shared.contains(off, sz) {
                Ok(Loc::Shared(off))
            } else if let Some(r) = super::cluster::locate(c, off, sz) {
                match r {
                    Ok((rank, o)) if rank == c.cluster.rank() => Ok(Loc::Shared(o)),
                    Ok((rank, o)) => Ok(Loc::Peer(rank, o)),
                    Err(detail) => Err(oob("shared::cluster", size, detail, lane, addr)),
                }
            } else {
                Err(oob(
                    "shared",
                    size,
                    format!(
                        "offset {off} is outside the CTA's {} bytes of shared memory",
                        c.shared.data.len()
                    ),
                    lane,
                    addr,
                ))
            }
        }
        AddrSpace::Local => {
            if c.local[lane].contains(off, sz) {
                Ok(Loc::Local(off))
            } else {
                Err(oob(
                    "local",
                    size,
                    format!(
                        "offset {off} is outside the thread's {} bytes of local memory",
                        c.local[lane].data.len()
                    ),
                    lane,
                    addr,
                ))
            }
        }
        AddrSpace::KernelParam => {
            if write {
                return Err(LaneFault {
                    kind: FaultKind::Undefined {
                        detail: "store to kernel parameter memory, which is read-only".into(),
                    },
                    lane: Some(lane as u32),
                    address: Some(addr),
                });
            }
            if c.params.contains(off, sz) {
                Ok(Loc::Param(off))
            } else {
                Err(oob(
                    "param",
                    size,
                    format!(
                        "offset {off} is outside the {} bytes of kernel parameters",
                        c.params.data.len()
                    ),
                    lane,
                    addr,
                ))
            }
        }
        AddrSpace::Const => {
            if write {
                return Err(LaneFault {
                    kind: FaultKind::Undefined {
                        detail: "store to constant memory".into(),
                    },
                    lane: Some(lane as u32),
                    address: Some(addr),
                });
            }
            if c.consts.contains(off, sz) {
                Ok(Loc::Const(off))
            } else {
                Err(oob(
                    "const",
                    size,
                    format!(
                        "offset {off} is outside the {} bytes of constant memory",
                        c.consts.data.len()
                    ),
                    lane,
                    addr,
                ))
            }
        }
    }
}

#[inline]
pub(super) fn load_at(c: &Ctx<'_>, loc: &Loc<'_>, size: u32, lane: usize) -> u64 {
    match *loc {
        Loc::Global(r, a) => r.load(a, size),
        Loc::Shared(o) => c.shared.load(o, size),
        Loc::Peer(r, o) => super::cluster::peer_load(c, r, o, size),
        Loc::Local(o) => c.local[lane].load(o, size),
        Loc::Param(o) => c.params.load(o, size),
        Loc::Const(o) => c.consts.load(o, size),
    }
}

#[inline]
pub(super) fn store_at(c: &mut Ctx<'_>, loc: &Loc<'_>, size: u32, lane: usize, v: u64) {
    match *loc {
        Loc::Global(r, a) => r.store(a, size, v),
        Loc::Shared(o) => c.shared.store(o, size, v),
        Loc::Peer(r, o) => super::cluster::peer_store(c, r, o, size, v),
        Loc::Local(o) => c.local[lane].store(o, size, v),
        Loc::Param(_) | Loc::Const(_) => {}
    }
}

/// Stores the 32-bit `v` at `a` for `lane`, an address that must lie in the CTA's shared
/// memory (a `.shared::cta` address, or a generic one in the shared window); returns it.
///
/// # Errors
/// An address outside the CTA's shared memory, or not 4-byte aligned.
pub fn store_shared_u32(c: &mut Ctx<'_>, a: &DAddr, lane: usize, v: u32) -> Result<u64, LaneFault> {
    let addr = lane_addr(c, a, lane);
    store_shared(c, a.space, addr, 4, 4, lane, u64::from(v))?;
    Ok(addr)
}

/// The offset in the CTA's shared memory of `addr`, a `.shared::cta` address or a generic one
/// in the shared window.
pub(super) fn shared_offset(space: AddrSpace, addr: u64, lane: usize) -> Result<u64, LaneFault> {
    let offset = match space {
        AddrSpace::Shared => Some(addr),
        AddrSpace::Generic => match window_of(addr) {
            Window::Shared(o) => Some(o),
            Window::Local(_) | Window::Const(_) | Window::Param(_) | Window::Global(_) => None,
        },
        AddrSpace::Global | AddrSpace::Local | AddrSpace::KernelParam | AddrSpace::Const => None,
    };
    let Some(off) = offset else {
        return Err(LaneFault {
            kind: FaultKind::Undefined {
                detail: format!("the address 0x{addr:x} is not in the CTA's shared memory"),
            },
            lane: Some(lane as u32),
            address: Some(addr),
        });
    };
    Ok(off)
}

/// Loads `size` bytes at `addr` in `space` (any state space, or generic) for `lane`, aligned
/// to `size`.
///
/// # Errors
/// An address outside every allocation of the space, or misaligned.
pub fn load_elem(
    c: &Ctx<'_>,
    space: AddrSpace,
    addr: u64,
    size: u32,
    lane: usize,
) -> Result<u64, LaneFault> {
    let loc = resolve(c, space, addr, size, size, lane, false)?;
    Ok(load_at(c, &loc, size, lane))
}

/// Stores `size` bytes of `v` at `addr` in `space` (any writable state space, or generic) for
/// `lane`, aligned to `size`.
///
/// # Errors
/// An address outside every allocation of the space, misaligned, or read-only.
pub fn store_elem(
    c: &mut Ctx<'_>,
    space: AddrSpace,
    addr: u64,
    size: u32,
    lane: usize,
    v: u64,
) -> Result<(), LaneFault> {
    let loc = resolve(c, space, addr, size, size, lane, true)?;
    store_at(c, &loc, size, lane, v);
    Ok(())
}

/// Loads `size` bytes (aligned to `align`) at `addr` in the CTA's shared memory (`space`:
/// `.shared` or generic) for `lane`.
///
/// # Errors
/// An address outside the CTA's shared memory, or misaligned.
pub fn load_shared(
    c: &Ctx<'_>,
    space: AddrSpace,
    addr: u64,
    size: u32,
    align: u32,
    lane: usize,
) -> Result<u64, LaneFault> {
    let off = shared_offset(space, addr, lane)?;
    let loc = resolve(c, AddrSpace::Shared, off, size, align, lane, false)?;
    Ok(load_at(c, &loc, size, lane))
}

/// Stores `size` bytes of `v` (aligned to `align`) at `addr` in the CTA's shared memory
/// (`space`: `.shared` or generic) for `lane`.
///
/// # Errors
/// An address outside the CTA's shared memory, or misaligned.
pub fn store_shared(
    c: &mut Ctx<'_>,
    space: AddrSpace,
    addr: u64,
    size: u32,
    align: u32,
    lane: usize,
    v: u64,
) -> Result<(), LaneFault> {
    let off = shared_offset(space, addr, lane)?;
    let loc = resolve(c, AddrSpace::Shared, off, size, align, lane, true)?;
    store_at(c, &loc, size, lane, v);
    Ok(())
}

pub(super) fn mem_of(i: &DInstr) -> Result<&MemAccess, LaneFault> {
    match &i.extra {
        Extra::Mem(m) => Ok(m),
        _ => Err(LaneFault::new(FaultKind::Unsupported {
            what: "memory instruction without a decoded access".into(),
        })),
    }
}

/// Checks that a vector access's first address is aligned to the whole vector.
#[inline]
pub(super) fn check_vector_align(addr: u64, align: u32, lane: usize) -> Result<(), LaneFault> {
    if align > 1 && !addr.is_multiple_of(u64::from(align)) {
        return Err(LaneFault {
            kind: FaultKind::Misaligned { align },
            lane: Some(lane as u32),
            address: Some(addr),
        });
    }
    Ok(())
}

/// Alignment a vector access needs: its element size times its element count (PTX requires
/// vector accesses to be aligned to the whole vector).
pub(super) fn vector_align(m: &MemAccess) -> u32 {
    m.size * m.count
}

/// `ld`, `ldu`, `ld.global.nc`.
pub fn ld(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = mem_of(i)?;
    let align = vector_align(m);
    let mask = c.mask;
    if m.size == 16 {
        return ld_b128(c, m, mask);
    }
    for (k, d) in m.dsts.iter().enumerate() {
        if *d == Dst::Sink {
            continue;
        }
        let mut out = [0u64; 32];
        let mut err = None;
        for_lanes(mask, |l| {
            if err.is_some() {
                return;
            }
            let a = lane_addr(c, &m.addr, l);
            if let Err(e) = check_vector_align(a, align, l) {
                err = Some(e);
                return;
            }
            match resolve(
                c,
                m.addr.space,
                a.wrapping_add(u64::from(m.size) * k as u64),
                m.size,
                m.size,
                l,
                false,
            ) {
                Ok(loc) => {
                    out[l] = match (c.l1, m.l1, &loc) {
                        (Some(l1), L1Use::Load(op), Loc::Global(r, ga)) => {
                            l1.load(c.cta_linear(), r, *ga, m.size, op)
                        }
                        _ => load_at(c, &loc, m.size, l),
                    };
                    if let (true, Some(t), Loc::Global(_, ga)) = (m.nc, c.nc, &loc) {
                        t.nc_read(c.nc_access(l, *ga), m.size);
                    }
                    if c.race.is_some() {
                        race_access(c, &loc, l, m.size, RaceAccess::Read);
                    }
                }
                Err(e) => {
                    if c.race.is_some() {
                        let a = a.wrapping_add(u64::from(m.size) * k as u64);
                        race_pending(c, m.addr.space, a, m.size, l, RaceAccess::Read);
                    }
                    err = Some(e)
                }
            }
        });
        if let Some(e) = err {
            return Err(e);
        }
        let _ = FULL;
        c.write(d, &out);
    }
    if let (Some(l1), L1Use::Acquire) = (c.l1, m.l1) {
        l1.invalidate(c.cta_linear());
    }
    Ok(Flow::Next)
}

pub(super) fn ld_b128(c: &mut Ctx<'_>, m: &MemAccess, mask: u32) -> R {
    for (k, d) in m.dsts.iter().enumerate() {
        let Dst::Reg { slot, .. } = *d else { continue };
        let mut lo = [0u64; 32];
        let mut hi = [0u64; 32];
        let mut err = None;
        for_lanes(mask, |l| {
            if err.is_some() {
                return;
            }
            let a = lane_addr(c, &m.addr, l).wrapping_add(16 * k as u64);
            match resolve(c, m.addr.space, a, 16, 16, l, false) {
                Ok(loc) => {
                    (lo[l], hi[l]) = match (c.l1, m.l1, &loc) {
                        (Some(l1), L1Use::Load(op), Loc::Global(r, ga)) => (
                            l1.load(c.cta_linear(), r, *ga, 8, op),
                            l1.load(c.cta_linear(), r, *ga + 8, 8, op),
                        ),
                        _ => (
                            load_at(c, &shift(&loc, 0), 8, l),
                            load_at(c, &shift(&loc, 8), 8, l),
                        ),
                    };
                    if let (true, Some(t), Loc::Global(_, ga)) = (m.nc, c.nc, &loc) {
                        t.nc_read(c.nc_access(l, *ga), 16);
                    }
                    if c.race.is_some() {
                        race_access(c, &loc, l, 16, RaceAccess::Read);
                    }
                }
                Err(e) => {
                    if c.race.is_some() {
                        race_pending(c, m.addr.space, a, 16, l, RaceAccess::Read);
                    }
                    err = Some(e)
                }
            }
        });
        if let Some(e) = err {
            return Err(e);
        }
        let dl = Dst::Reg {
            slot,
            bits: 64,
            sext_from: 0,
        };
        let dh = Dst::Reg {
            slot: slot + 1,
            bits: 64,
            sext_from: 0,
        };
        c.write(&dl, &lo);
        c.write(&dh, &hi);
    }
    Ok(Flow::Next)
}

pub(super) fn shift<'g>(loc: &Loc<'g>, by: u64) -> Loc<'g> {
    match *loc {
        Loc::Global(r, a) => Loc::Global(r, a + by),
        Loc::Shared(o) => Loc::Shared(o + by),
        Loc::Peer(r, o) => Loc::Peer(r, o + by),
        Loc::Local(o) => Loc::Local(o + by),
        Loc::Param(o) => Loc::Param(o + by),
        Loc::Const(o) => Loc::Const(o + by),
    }
}

/// `st`.
pub fn st(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = mem_of(i)?;
    let align = vector_align(m);
    let mask = c.mask;
    for (k, s) in m.srcs.iter().enumerate() {
        if matches!(s, crate::exec::program::Src::None) {
            continue;
        }
        let vals = c.fetch(s);
        let hi = if m.size == 16 {
            match s {
                crate::exec::program::Src::Reg(slot) => {
                    Some(c.fetch(&crate::exec::program::Src::Reg(slot + 1)))
                }
                _ => Some([0; 32]),
            }
        } else {
            None
        };
        let mut err = None;
        let mut m2 = mask;
        while m2 != 0 {
            let l = m2.trailing_zeros() as usize;
            m2 &= m2 - 1;
            let base = lane_addr(c, &m.addr, l);
            if let Err(e) = check_vector_align(base, align, l) {
                err = Some(e);
                break;
            }
            let a = base.wrapping_add(u64::from(m.size) * k as u64);
            match resolve(c, m.addr.space, a, m.size, m.size, l, true) {
                Ok(loc) => {
                    if let (Some(t), Loc::Global(_, ga)) = (c.nc, &loc) {
                        t.write(c.nc_access(l, *ga), m.size);
                    }
                    if c.race.is_some() {
                        race_access(c, &loc, l, m.size, RaceAccess::Write);
                    }
                    if let Some(hi) = &hi {
                        store_at(c, &loc, 8, l, vals[l]);
                        store_at(c, &shift(&loc, 8), 8, l, hi[l]);
                    } else {
                        store_at(c, &loc, m.size, l, vals[l]);
                    }
                    if let (Some(l1), L1Use::Store(op), Loc::Global(_, ga)) = (c.l1, m.l1, &loc) {
                        match &hi {
                            Some(hi) => {
                                l1.store(c.cta_linear(), *ga, 8, vals[l], op);
                                l1.store(c.cta_linear(), *ga + 8, 8, hi[l], op);
                            }
                            None => l1.store(c.cta_linear(), *ga, m.size, vals[l], op),
                        }
                    }
                }
                Err(e) => {
                    if c.race.is_some() {
                        race_pending(c, m.addr.space, a, m.size, l, RaceAccess::Write);
                    }
                    err = Some(e);
                    break;
                }
            }
        }
        if let Some(e) = err {
            return Err(e);
        }
    }
    Ok(Flow::Next)
}

#[doc(hidden)]
pub fn space_label(s: AddrSpace) -> &'static str {
    space_name(s)
}

/// A `.shared` state-space address taken modulo 2³² (shared addresses are 32-bit).
#[inline(always)]
pub(crate) fn shared_wrap(addr: u64) -> u64 {
    addr & 0xffff_ffff
}
