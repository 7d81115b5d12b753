//! Memory instructions: `ld`, `ldu`, `st`, `mov`, `cvta`, `isspacep`, and the no-op hints
//! (`prefetch`, `applypriority`, `discard`, `createpolicy`).
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
use crate::exec::memory::{
    window_of, Region, Window, CONST_WINDOW, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW, WINDOW_SIZE,
};
use crate::exec::program::{AddrBase, AddrSpace, DAddr, DInstr, Dst, Extra, Flow, MemAccess};
use crate::race::cta::Access as RaceAccess;

type R = Result<Flow, LaneFault>;

/// A resolved memory location.
enum Loc<'g> {
    Global(&'g Region, u64),
    Shared(u64),
    /// Bytes of another CTA of the cluster: its rank and offset.
    Peer(u32, u64),
    Local(u64),
    Param(u64),
    Const(u64),
}

fn space_name(s: AddrSpace) -> &'static str {
    match s {
        AddrSpace::Generic => "generic",
        AddrSpace::Global => "global",
        AddrSpace::Shared => "shared",
        AddrSpace::Local => "local",
        AddrSpace::KernelParam => "param",
        AddrSpace::Const => "const",
    }
}

fn oob(space: &str, size: u32, detail: String, lane: usize, addr: u64) -> LaneFault {
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
fn resolve<'g>(
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

/// `--race`: hands lane `lane`'s access at `loc` to the race detector (global and shared
/// memory only: local memory is private and parameters and constants are read-only).
#[cold]
fn race_access(c: &mut Ctx<'_>, loc: &Loc<'_>, lane: usize, size: u32, a: RaceAccess) {
    let (shared, addr) = match *loc {
        Loc::Global(_, g) => (false, g),
        Loc::Shared(o) => (true, o),
        Loc::Peer(..) | Loc::Local(_) | Loc::Param(_) | Loc::Const(_) => return,
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
        AddrSpace::Shared => (true, shared_wrap(addr)),
        AddrSpace::Global => (false, addr),
        AddrSpace::Generic => match window_of(addr) {
            Window::Shared(o) => (true, o),
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

/// `--race`: an access refused because a pending `cp.async` still writes its bytes races
/// with that copy; hands it to the detector so the report names the race beside the fault.
#[cold]
fn race_pending(
    c: &mut Ctx<'_>,
    space: AddrSpace,
    addr: u64,
    size: u32,
    lane: usize,
    a: RaceAccess,
) {
    let off = match space {
        AddrSpace::Shared => shared_wrap(addr),
        AddrSpace::Generic => match window_of(addr) {
            Window::Shared(o) => o,
            _ => return,
        },
        _ => return,
    };
    if c.asyncs.overlapping(off, u64::from(size)).is_some() {
        race_access(c, &Loc::Shared(off), lane, size, a);
    }
}

#[inline]
fn load_at(c: &Ctx<'_>, loc: &Loc<'_>, size: u32, lane: usize) -> u64 {
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
fn store_at(c: &mut Ctx<'_>, loc: &Loc<'_>, size: u32, lane: usize, v: u64) {
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
fn shared_offset(space: AddrSpace, addr: u64, lane: usize) -> Result<u64, LaneFault> {
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

fn mem_of(i: &DInstr) -> Result<&MemAccess, LaneFault> {
    match &i.extra {
        Extra::Mem(m) => Ok(m),
        _ => Err(LaneFault::new(FaultKind::Unsupported {
            what: "memory instruction without a decoded access".into(),
        })),
    }
}

/// Checks that a vector access's first address is aligned to the whole vector.
#[inline]
fn check_vector_align(addr: u64, align: u32, lane: usize) -> Result<(), LaneFault> {
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
fn vector_align(m: &MemAccess) -> u32 {
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

fn ld_b128(c: &mut Ctx<'_>, m: &MemAccess, mask: u32) -> R {
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

fn shift<'g>(loc: &Loc<'g>, by: u64) -> Loc<'g> {
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

/// `mov d, a` of a scalar.
pub fn mov(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let a = c.fetch(&i.s[0]);
    c.write(&i.d[0], &a);
    Ok(Flow::Next)
}

/// `mov` packing: `d = {a, b, …}`; the element width in bits is the immediate `s[1]`.
pub fn mov_pack(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Elems(srcs, _) = &i.extra else {
        return Ok(Flow::Next);
    };
    let width = elem_width(i);
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let mut out = [0u64; 32];
    for (k, s) in srcs.iter().enumerate() {
        let v = c.fetch(s);
        for (l, o) in out.iter_mut().enumerate() {
            *o |= (v[l] & mask).checked_shl(width * k as u32).unwrap_or(0);
        }
    }
    c.write(&i.d[0], &out);
    Ok(Flow::Next)
}

/// `mov` unpacking: `{a, b, …} = s`; the element width in bits is the immediate `s[1]`.
pub fn mov_unpack(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Elems(_, dsts) = &i.extra else {
        return Ok(Flow::Next);
    };
    let width = elem_width(i);
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let v = c.fetch(&i.s[0]);
    for (k, d) in dsts.iter().enumerate() {
        let out: [u64; 32] =
            std::array::from_fn(|l| v[l].checked_shr(width * k as u32).unwrap_or(0) & mask);
        c.write(d, &out);
    }
    Ok(Flow::Next)
}

fn elem_width(i: &DInstr) -> u32 {
    match i.s[1] {
        crate::exec::program::Src::Imm(bits) => bits as u32,
        _ => 32,
    }
}

/// `cvta.space` (space → generic): `Param` holds the window base.
pub fn cvta_to_generic(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(base) = i.extra else {
        return Ok(Flow::Next);
    };
    let a = c.fetch(&i.s[0]);
    let out: [u64; 32] = std::array::from_fn(|l| if base == 0 { a[l] } else { base + a[l] });
    c.write(&i.d[0], &out);
    Ok(Flow::Next)
}

/// `cvta.to.space` (generic → space): `Param` holds the window base (0 for global). An
/// address outside the window faults.
pub fn cvta_from_generic(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(base) = i.extra else {
        return Ok(Flow::Next);
    };
    let a = c.fetch(&i.s[0]);
    let mut out = [0u64; 32];
    let mut bad = None;
    for_lanes(c.mask, |l| {
        let v = a[l];
        if base == 0 {
            if !matches!(window_of(v), Window::Global(_)) {
                bad = bad.or(Some(l));
            }
            out[l] = v;
        } else if v >= base && v - base < WINDOW_SIZE {
            out[l] = v - base;
        } else {
            bad = bad.or(Some(l));
        }
    });
    if let Some(l) = bad {
        let name = match base {
            SHARED_WINDOW => "shared",
            LOCAL_WINDOW => "local",
            CONST_WINDOW => "const",
            PARAM_WINDOW => "param",
            _ => "global",
        };
        return Err(LaneFault {
            kind: FaultKind::Undefined {
                detail: format!(
                    "cvta.to.{name} of a generic address that is not in the {name} window"
                ),
            },
            lane: Some(l as u32),
            address: Some(a[l]),
        });
    }
    c.write(&i.d[0], &out);
    Ok(Flow::Next)
}

/// `isspacep.space p, a`: `Param` holds the window base (0 for global).
pub fn isspacep(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let Extra::Param(base) = i.extra else {
        return Ok(Flow::Next);
    };
    let a = c.fetch(&i.s[0]);
    let mut m = 0u32;
    for_lanes(c.mask, |l| {
        let w = window_of(a[l]);
        let yes = match base {
            0 => matches!(w, Window::Global(_)),
            SHARED_WINDOW => matches!(w, Window::Shared(_)),
            LOCAL_WINDOW => matches!(w, Window::Local(_)),
            CONST_WINDOW => matches!(w, Window::Const(_)),
            PARAM_WINDOW => matches!(w, Window::Param(_)),
            _ => false,
        };
        if yes {
            m |= 1 << l;
        }
    });
    c.write_mask(&i.d[0], m);
    Ok(Flow::Next)
}

/// Instructions with no effect on values (cache hints, prefetches, `nanosleep`, fences in
/// this sequentially consistent interpreter).
pub fn nop(_c: &mut Ctx<'_>, _i: &DInstr) -> R {
    Ok(Flow::Next)
}

/// `fence`, `membar`: no effect on a coherent memory; with the L1 model they invalidate the
/// SM's L1 (as the hardware does to make other SMs' writes visible).
pub fn fence(c: &mut Ctx<'_>, _i: &DInstr) -> R {
    if let Some(l1) = c.l1 {
        l1.invalidate(c.cta_linear());
    }
    let (mask, warp, pc) = (c.mask, c.ids.warp as usize, c.pc);
    if let Some(r) = c.race.as_deref_mut() {
        for_lanes(mask, |l| r.fence(warp * 32 + l, pc));
    }
    Ok(Flow::Next)
}

/// `createpolicy`: an opaque 64-bit policy (a fixed tag that encodes nothing).
pub fn createpolicy(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let out = [0x0c0f_fee0_0000_0000u64; 32];
    c.write(&i.d[0], &out);
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

/// The addresses of every enabled lane for an access whose base is a register or fixed.
#[inline(always)]
fn lane_addrs(c: &Ctx<'_>, a: &DAddr) -> [u64; 32] {
    let off = a.offset as u64;
    match a.base {
        AddrBase::Reg(slot) => {
            let base = slot as usize * 32;
            let mut out = [0u64; 32];
            for (o, v) in out.iter_mut().zip(&c.vals[base..base + 32]) {
                *o = v.wrapping_add(off);
            }
            out
        }
        AddrBase::Fixed(v) => [v.wrapping_add(off); 32],
        AddrBase::Frame(f) => std::array::from_fn(|l| c.ids.frame_base[l] + f + off),
    }
}

/// A scalar shared-memory load of `SIZE` bytes: bounds and alignment are checked for all
/// lanes first; any problem falls back to [`ld`], which reports the precise fault.
pub fn ld_shared<const SIZE: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = mem_of(i)?;
    let addrs = lane_addrs(c, &m.addr).map(shared_wrap);
    let mask = c.mask;
    let limit = (c.shared.data.len() as u64).wrapping_sub(u64::from(SIZE));
    let mut bad = false;
    for_lanes(mask, |l| {
        let a = addrs[l];
        bad |= a > limit || !a.is_multiple_of(u64::from(SIZE));
    });
    if bad || c.shared.data.len() < SIZE as usize || c.asyncs.has_pending() || c.race.is_some() {
        return ld(c, i);
    }
    let mut out = [0u64; 32];
    let data = c.shared.data.as_ptr();
    for_lanes(mask, |l| {
        let o = addrs[l] as usize;
        // SAFETY: every enabled lane's `o + SIZE` was checked against the length above.
        out[l] = unsafe {
            match SIZE {
                1 => u64::from(*data.add(o)),
                2 => u64::from(u16::from_le((data.add(o) as *const u16).read_unaligned())),
                4 => u64::from(u32::from_le((data.add(o) as *const u32).read_unaligned())),
                _ => u64::from_le((data.add(o) as *const u64).read_unaligned()),
            }
        };
    });
    let d = m.dsts[0];
    c.write(&d, &out);
    Ok(Flow::Next)
}

/// A scalar shared-memory store of `SIZE` bytes (fast path of [`st`]).
pub fn st_shared<const SIZE: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = mem_of(i)?;
    let addrs = lane_addrs(c, &m.addr).map(shared_wrap);
    let mask = c.mask;
    let limit = (c.shared.data.len() as u64).wrapping_sub(u64::from(SIZE));
    let mut bad = false;
    for_lanes(mask, |l| {
        let a = addrs[l];
        bad |= a > limit || !a.is_multiple_of(u64::from(SIZE));
    });
    if bad || c.shared.data.len() < SIZE as usize || c.asyncs.has_pending() || c.race.is_some() {
        return st(c, i);
    }
    let vals = c.fetch(&m.srcs[0]);
    let data = &mut c.shared.data;
    // Lanes store in lane order, so the highest lane wins a conflict (as a sequence would).
    for_lanes(mask, |l| {
        let o = addrs[l] as usize;
        data[o..o + SIZE as usize].copy_from_slice(&vals[l].to_le_bytes()[..SIZE as usize]);
    });
    Ok(Flow::Next)
}

/// A scalar global (or generic-to-global) load of `SIZE` bytes: all lanes must fall in the
/// allocation the first lane's address lies in; otherwise [`ld`] handles it.
pub fn ld_global<const SIZE: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    if c.l1.is_some() || c.race.is_some() {
        return ld(c, i);
    }
    let m = mem_of(i)?;
    let addrs = lane_addrs(c, &m.addr);
    let mask = c.mask;
    let first = addrs[mask.trailing_zeros() as usize];
    let Some(r) = c.global.find(first, u64::from(SIZE)) else {
        return ld(c, i);
    };
    let mut bad = false;
    for_lanes(mask, |l| {
        let a = addrs[l];
        bad |= !r.contains(a, u64::from(SIZE)) || !a.is_multiple_of(u64::from(SIZE));
    });
    if bad {
        return ld(c, i);
    }
    let mut out = [0u64; 32];
    for_lanes(mask, |l| out[l] = r.load(addrs[l], SIZE));
    let d = m.dsts[0];
    c.write(&d, &out);
    Ok(Flow::Next)
}

/// A scalar global (or generic-to-global) store of `SIZE` bytes (fast path of [`st`]).
pub fn st_global<const SIZE: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    if c.l1.is_some() || c.race.is_some() {
        return st(c, i);
    }
    let m = mem_of(i)?;
    let addrs = lane_addrs(c, &m.addr);
    let mask = c.mask;
    let first = addrs[mask.trailing_zeros() as usize];
    let Some(r) = c.global.find(first, u64::from(SIZE)) else {
        return st(c, i);
    };
    let mut bad = false;
    for_lanes(mask, |l| {
        let a = addrs[l];
        bad |= !r.contains(a, u64::from(SIZE)) || !a.is_multiple_of(u64::from(SIZE));
    });
    if bad {
        return st(c, i);
    }
    let vals = c.fetch(&m.srcs[0]);
    if let Some(t) = c.nc {
        for_lanes(mask, |l| t.write(c.nc_access(l, addrs[l]), SIZE));
    }
    for_lanes(mask, |l| r.store(addrs[l], SIZE, vals[l]));
    Ok(Flow::Next)
}

/// A kernel-parameter load at a fixed offset: the same value for every lane, read once.
pub fn ld_param_uniform<const SIZE: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = mem_of(i)?;
    let AddrBase::Fixed(base) = m.addr.base else {
        return ld(c, i);
    };
    let off = base.wrapping_add(m.addr.offset as u64);
    if !c.params.contains(off, u64::from(SIZE)) || !off.is_multiple_of(u64::from(SIZE)) {
        return ld(c, i);
    }
    let v = c.params.load(off, SIZE);
    let d = m.dsts[0];
    c.write(&d, &[v; 32]);
    Ok(Flow::Next)
}

/// The fast-path execution function for a scalar access, if one applies.
pub fn fast_path(m: &MemAccess, load: bool) -> Option<crate::exec::program::ExecFn> {
    if m.count != 1 || m.nc {
        return None;
    }
    if matches!(m.addr.base, AddrBase::Frame(_)) {
        return None;
    }
    let f: crate::exec::program::ExecFn = match (m.addr.space, load, m.size) {
        (AddrSpace::KernelParam, true, 1) => ld_param_uniform::<1>,
        (AddrSpace::KernelParam, true, 2) => ld_param_uniform::<2>,
        (AddrSpace::KernelParam, true, 4) => ld_param_uniform::<4>,
        (AddrSpace::KernelParam, true, 8) => ld_param_uniform::<8>,
        (AddrSpace::Shared, true, 1) => ld_shared::<1>,
        (AddrSpace::Shared, true, 2) => ld_shared::<2>,
        (AddrSpace::Shared, true, 4) => ld_shared::<4>,
        (AddrSpace::Shared, true, 8) => ld_shared::<8>,
        (AddrSpace::Shared, false, 1) => st_shared::<1>,
        (AddrSpace::Shared, false, 2) => st_shared::<2>,
        (AddrSpace::Shared, false, 4) => st_shared::<4>,
        (AddrSpace::Shared, false, 8) => st_shared::<8>,
        (AddrSpace::Global | AddrSpace::Generic, true, 1) => ld_global::<1>,
        (AddrSpace::Global | AddrSpace::Generic, true, 2) => ld_global::<2>,
        (AddrSpace::Global | AddrSpace::Generic, true, 4) => ld_global::<4>,
        (AddrSpace::Global | AddrSpace::Generic, true, 8) => ld_global::<8>,
        (AddrSpace::Global | AddrSpace::Generic, false, 1) => st_global::<1>,
        (AddrSpace::Global | AddrSpace::Generic, false, 2) => st_global::<2>,
        (AddrSpace::Global | AddrSpace::Generic, false, 4) => st_global::<4>,
        (AddrSpace::Global | AddrSpace::Generic, false, 8) => st_global::<8>,
        _ => return None,
    };
    Some(f)
}
