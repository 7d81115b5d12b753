//! Memory instructions: `ld`, `ldu` and `st` (moves, `cvta` and the hints are in `mov_cvta`,
//! the specialised fast paths in `mem_fast`, the race detector's view in `mem_race`).
//!
//! Every access is checked: it must be aligned to its size (the whole vector for `.v2/.v4`),
//! and lie inside an allocation or window; otherwise the lane faults with the address.
//! Loads of signed types sign-extend into wider registers, others zero-extend; stores write
//! the low bytes of wider registers (PTX ISA "ld", "st", relaxed type-checking rules).
//! Addresses are resolved by [`crate::exec::address`].

use crate::exec::address::{lane_addr, load_at, resolve, shift, store_at, Loc};
use crate::exec::ctx::{for_lanes, Ctx, FULL};
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::l1::L1Use;
use crate::exec::program::{DInstr, Dst, Extra, Flow, MemAccess};
use crate::race::cta::Access as RaceAccess;

pub use super::mem_fast::{
    fast_path, ld_global, ld_param_uniform, ld_shared, st_global, st_shared,
};
pub use super::mem_race::race_elem;
pub(crate) use super::mem_race::*;
pub use super::mov_cvta::{
    createpolicy, cvta_from_generic, cvta_to_generic, fence, isspacep, mov, mov_pack, mov_unpack,
    nop,
};

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
