//! Memory instructions: `ld`, `ldu` and `st` (moves and `cvta` are in `mov`, fences in `fence`, the hints in `hints`).
//!
//! Every access is checked: it must be aligned to its size (the whole vector for `.v2/.v4`),
//! and lie inside an allocation or window; otherwise the lane faults with the address.
//! Loads of signed types sign-extend into wider registers, others zero-extend; stores write
//! the low bytes of wider registers (PTX ISA "ld", "st", relaxed type-checking rules).
//! Addresses are resolved by [`crate::exec::address`].
//!
//! Specialised `ld`/`st` serve the common cases a decoded instruction can prove in advance
//! ([`fast_path`]): `.shared` and `.global` scalars of one size with a register-plus-offset
//! address, and uniform `.param` loads. Each keeps every check of the general path.

use crate::exec::address::*;
use crate::exec::ctx::{for_lanes, Ctx, FULL};
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::hooks::events::AccessKind;
use crate::exec::memory::{GlobalMemory, Region};
use crate::exec::program::{AddrBase, AddrSpace, DAddr, DInstr, Dst, Extra, Flow, MemAccess};

type R = Result<Flow, LaneFault>;

pub(crate) fn mem_of(i: &DInstr) -> Result<&MemAccess, LaneFault> {
    match &i.extra {
        Extra::Mem(m) => Ok(m),
        _ => Err(LaneFault::new(FaultKind::Unsupported {
            what: "memory instruction without a decoded access".into(),
        })),
    }
}

/// Checks that a vector access's first address is aligned to the whole vector.
#[inline]
pub(crate) fn check_vector_align(addr: u64, align: u32, lane: usize) -> Result<(), LaneFault> {
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
pub(crate) fn vector_align(m: &MemAccess) -> u32 {
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
                    out[l] = c.load_through_caches(&loc, m.size, l, m.cache);
                    c.after_read(&loc, l, m.size, m.nc);
                }
                Err(e) => {
                    let a = a.wrapping_add(u64::from(m.size) * k as u64);
                    c.refused_access(m.addr.space, a, m.size, l, AccessKind::Read);
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
    c.after_acquire(m.cache);
    Ok(Flow::Next)
}

pub(crate) fn ld_b128(c: &mut Ctx<'_>, m: &MemAccess, mask: u32) -> R {
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
                    (lo[l], hi[l]) = (
                        c.load_through_caches(&shift(&loc, 0), 8, l, m.cache),
                        c.load_through_caches(&shift(&loc, 8), 8, l, m.cache),
                    );
                    c.after_read(&loc, l, 16, m.nc);
                }
                Err(e) => {
                    c.refused_access(m.addr.space, a, 16, l, AccessKind::Read);
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
                    c.before_write(&loc, l, m.size);
                    if let Some(hi) = &hi {
                        store_at(c, &loc, 8, l, vals[l]);
                        store_at(c, &shift(&loc, 8), 8, l, hi[l]);
                        c.after_store(&loc, 8, vals[l], m.cache);
                        c.after_store(&shift(&loc, 8), 8, hi[l], m.cache);
                    } else {
                        store_at(c, &loc, m.size, l, vals[l]);
                        c.after_store(&loc, m.size, vals[l], m.cache);
                    }
                }
                Err(e) => {
                    c.refused_access(m.addr.space, a, m.size, l, AccessKind::Write);
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

/// The addresses of every enabled lane for an access whose base is a register or fixed.
#[inline(always)]
pub(crate) fn lane_addrs(c: &Ctx<'_>, a: &DAddr) -> [u64; 32] {
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

/// Whether every enabled lane's `SIZE`-byte access lies inside shared memory of `len` bytes
/// and is aligned (the fast paths' precondition; [`ld`]/[`st`] report any violation).
#[inline(always)]
fn shared_in_bounds<const SIZE: u32>(len: usize, mask: u32, addrs: &[u64; 32]) -> bool {
    let limit = (len as u64).wrapping_sub(u64::from(SIZE));
    let mut bad = len < SIZE as usize;
    for_lanes(mask, |l| {
        let a = addrs[l];
        bad |= a > limit || !a.is_multiple_of(u64::from(SIZE));
    });
    !bad
}

/// The allocation holding every enabled lane's aligned `SIZE`-byte access, if one allocation
/// (the first lane's) holds them all.
#[inline(always)]
fn global_region<'g, const SIZE: u32>(
    global: &'g GlobalMemory,
    mask: u32,
    addrs: &[u64; 32],
) -> Option<&'g Region> {
    let r = global.find(addrs[mask.trailing_zeros() as usize], u64::from(SIZE))?;
    // Every lane is checked, branch-free (so the loop vectorises): the same test as
    // `Region::contains`, an address below the base wrapping to a large offset.
    let last = r.len.checked_sub(u64::from(SIZE))?;
    let mut bad = 0u32;
    for (l, a) in addrs.iter().enumerate() {
        let outside = a.wrapping_sub(r.base) > last;
        let misaligned = a % u64::from(SIZE) != 0;
        bad |= u32::from(outside | misaligned) << l;
    }
    (bad & mask == 0).then_some(r)
}

/// A scalar shared-memory load of `SIZE` bytes: bounds and alignment are checked for all
/// lanes first; any problem falls back to [`ld`], which reports the precise fault.
pub fn ld_shared<const SIZE: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = mem_of(i)?;
    let addrs = lane_addrs(c, &m.addr).map(|a| c.own_shared(shared_wrap(a)));
    let mask = c.mask;
    if !shared_in_bounds::<SIZE>(c.shared.data.len(), mask, &addrs) || c.asyncs.has_pending() {
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
    if c.observes_accesses() {
        c.after_warp_access(true, &addrs, SIZE, AccessKind::Read);
    }
    let d = m.dsts[0];
    c.write(&d, &out);
    Ok(Flow::Next)
}

/// A scalar shared-memory store of `SIZE` bytes (fast path of [`st`]).
pub fn st_shared<const SIZE: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = mem_of(i)?;
    let addrs = lane_addrs(c, &m.addr).map(|a| c.own_shared(shared_wrap(a)));
    let mask = c.mask;
    if !shared_in_bounds::<SIZE>(c.shared.data.len(), mask, &addrs) || c.asyncs.has_pending() {
        return st(c, i);
    }
    if c.observes_accesses() {
        c.after_warp_access(true, &addrs, SIZE, AccessKind::Write);
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
    if c.caches_global() {
        return ld(c, i);
    }
    let m = mem_of(i)?;
    let addrs = lane_addrs(c, &m.addr);
    let mask = c.mask;
    let Some(r) = global_region::<SIZE>(c.global, mask, &addrs) else {
        return ld(c, i);
    };
    let mut out = [0u64; 32];
    for_lanes(mask, |l| out[l] = r.load(addrs[l], SIZE));
    if c.observes_accesses() {
        c.after_warp_access(false, &addrs, SIZE, AccessKind::Read);
    }
    let d = m.dsts[0];
    c.write(&d, &out);
    Ok(Flow::Next)
}

/// A scalar global (or generic-to-global) store of `SIZE` bytes (fast path of [`st`]).
pub fn st_global<const SIZE: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    if c.caches_global() {
        return st(c, i);
    }
    let m = mem_of(i)?;
    let addrs = lane_addrs(c, &m.addr);
    let mask = c.mask;
    let Some(r) = global_region::<SIZE>(c.global, mask, &addrs) else {
        return st(c, i);
    };
    let vals = c.fetch(&m.srcs[0]);
    c.before_warp_global_write(&addrs, SIZE);
    if c.observes_accesses() {
        c.after_warp_access(false, &addrs, SIZE, AccessKind::Write);
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
