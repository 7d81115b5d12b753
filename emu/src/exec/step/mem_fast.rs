//! Specialised `ld`/`st` for the common cases a decoded instruction can prove in advance:
//! `.shared` and `.global` scalars of one size with a register-plus-offset address, and
//! uniform `.param` loads. Each keeps every check of the general path in `mem`.

use super::mem::*;
use super::{for_lanes, Ctx};
use crate::exec::fault::LaneFault;
use crate::exec::memory::{GlobalMemory, Region};
use crate::exec::program::{AddrBase, AddrSpace, DAddr, DInstr, Flow, MemAccess};
use crate::race::cta::Access as RaceAccess;

type R = Result<Flow, LaneFault>;

/// The addresses of every enabled lane for an access whose base is a register or fixed.
#[inline(always)]
pub(super) fn lane_addrs(c: &Ctx<'_>, a: &DAddr) -> [u64; 32] {
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
    let mut bad = false;
    for_lanes(mask, |l| {
        let a = addrs[l];
        bad |= !r.contains(a, u64::from(SIZE)) || !a.is_multiple_of(u64::from(SIZE));
    });
    (!bad).then_some(r)
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
    if c.race.is_some() {
        race_warp(c, true, &addrs, SIZE, RaceAccess::Read);
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
    if c.race.is_some() {
        race_warp(c, true, &addrs, SIZE, RaceAccess::Write);
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
    if c.l1.is_some() {
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
    if c.race.is_some() {
        race_warp(c, false, &addrs, SIZE, RaceAccess::Read);
    }
    let d = m.dsts[0];
    c.write(&d, &out);
    Ok(Flow::Next)
}

/// A scalar global (or generic-to-global) store of `SIZE` bytes (fast path of [`st`]).
pub fn st_global<const SIZE: u32>(c: &mut Ctx<'_>, i: &DInstr) -> R {
    if c.l1.is_some() {
        return st(c, i);
    }
    let m = mem_of(i)?;
    let addrs = lane_addrs(c, &m.addr);
    let mask = c.mask;
    let Some(r) = global_region::<SIZE>(c.global, mask, &addrs) else {
        return st(c, i);
    };
    let vals = c.fetch(&m.srcs[0]);
    if let Some(t) = c.nc {
        for_lanes(mask, |l| t.write(c.nc_access(l, addrs[l]), SIZE));
    }
    if c.race.is_some() {
        race_warp(c, false, &addrs, SIZE, RaceAccess::Write);
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
