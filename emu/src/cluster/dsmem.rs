//! The `.shared::cluster` window (PTX ISA "Distributed shared memory"): how an address names
//! the shared memory of any CTA of the cluster.
//!
//! A CTA's own `.shared::cta` offsets are valid `.shared::cluster` addresses of itself. `mapa`
//! gives the address of offset `o` in the CTA of rank `r` as [`CLUSTER_WINDOW`]` + (r <<
//! `[`RANK_SHIFT`]`) + o`, and its generic form lies in the generic shared window at that
//! offset. Loads, stores, atomics and mbarrier operations on such an address reach CTA `r`'s
//! shared memory. As on sm_90 and sm_100, where a CTA's shared addresses carry its cluster rank
//! from bit 24 (CUTLASS clears bit 24 to name the even CTA of a pair), the value of a shared
//! variable's address in a CTA of rank r > 0 is that CTA's own `.shared::cluster` address of it
//! (`Src::SharedSym`); a rank-0 CTA, and every CTA of a launch without clusters, sees plain
//! offsets. Accesses through either form reach the same bytes.
//!
//! The services here reach that memory for the executing instruction: [`locate`] a
//! `.shared::cluster` offset, load, store and read-modify-write a peer's bytes, and run an
//! mbarrier instruction or a copy with a peer's shared memory and mbarriers lent to the
//! context ([`per_peer`], [`at_rank`], [`targets`]).

use super::shape::MAX_CLUSTER_CTAS;
use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::hooks::events::AccessKind;
use crate::exec::memory::{window_of, Window};
use crate::exec::program::operand::{AddrBase, AddrSpace, DAddr};
use crate::exec::program::{DInstr, Flow};

type R = Result<Flow, LaneFault>;

/// Where the `.shared::cluster` addresses of the cluster's CTAs start (an offset in the
/// shared window; below it lie the executing CTA's own `.shared::cta` offsets).
pub const CLUSTER_WINDOW: u64 = 0x8000_0000;
/// Bits of a `.shared::cluster` address below the CTA rank.
pub const RANK_SHIFT: u32 = 24;

/// The `.shared::cluster` address of offset `off` in the shared memory of CTA `rank`.
#[inline]
pub fn encode(rank: u32, off: u64) -> u64 {
    CLUSTER_WINDOW + (u64::from(rank) << RANK_SHIFT) + off
}

/// The CTA rank and offset of a `.shared::cluster` address made by [`encode`]; `None` for an
/// address below the cluster window (a CTA's own offset) or past its last possible rank.
#[inline]
pub fn decode(addr: u64) -> Option<(u32, u64)> {
    let rel = addr.checked_sub(CLUSTER_WINDOW)?;
    let rank = rel >> RANK_SHIFT;
    (rank < u64::from(MAX_CLUSTER_CTAS)).then_some((rank as u32, rel & ((1 << RANK_SHIFT) - 1)))
}

/// An undefined use of a `.shared::cluster` address by a lane.
pub(crate) fn undefined(lane: usize, addr: u64, detail: String) -> LaneFault {
    LaneFault {
        kind: FaultKind::Undefined { detail },
        lane: Some(lane as u32),
        address: Some(addr),
    }
}

/// The CTA rank and offset that a shared-window offset names: a `.shared::cluster` address, or
/// one of the executing CTA's own offsets.
pub(crate) fn rank_and_offset(c: &Ctx<'_>, off: u64) -> (u32, u64) {
    decode(off).unwrap_or((c.cluster.rank(), off))
}

/// Where a shared-window offset outside the executing CTA's own shared memory lies in the
/// cluster: `None` when it is no `.shared::cluster` address; else the CTA rank and offset of
/// `size` bytes there, or why they lie in no CTA's shared memory.
pub fn locate(c: &Ctx<'_>, off: u64, size: u64) -> Option<Result<(u32, u64), String>> {
    let (rank, o) = decode(off)?;
    let n = c.cluster.size();
    if rank >= n {
        return Some(Err(format!(
            "the .shared::cluster address 0x{off:x} names CTA rank {rank}, but the cluster has {n} CTA(s)"
        )));
    }
    let len = if rank == c.cluster.rank() {
        c.shared.data.len() as u64
    } else {
        c.cluster.shared(rank).map_or(0, |b| b.data.len() as u64)
    };
    if size > len || o > len - size {
        let ctaid = if rank == c.cluster.rank() {
            c.launch.ctaid
        } else {
            c.cluster.ctaid(rank)
        };
        return Some(Err(format!(
            "offset {o} of cluster rank {rank} (CTA {}) is outside its {len} bytes of shared memory",
            crate::cluster::shape::triple(ctaid)
        )));
    }
    Some(Ok((rank, o)))
}

/// The CTA-relative form of lane `lane`'s shared address `a` (a `.shared::cluster` address's
/// offset, or an own offset): what a multicast operation means by "the same CTA-relative
/// offset in each destination CTA" (PTX ISA "cp.async.bulk", "cp.async.bulk.tensor",
/// "tcgen05.commit", "clusterlaunchcontrol.try_cancel").
pub fn cta_relative(c: &Ctx<'_>, a: &DAddr, lane: usize) -> DAddr {
    let addr = crate::exec::address::lane_addr(c, a, lane);
    let off = match (a.space, window_of(addr)) {
        (AddrSpace::Generic, Window::Shared(o)) => o,
        _ => addr & 0xffff_ffff,
    };
    let (_, o) = rank_and_offset(c, off);
    DAddr {
        base: AddrBase::Fixed(o),
        offset: 0,
        space: AddrSpace::Shared,
    }
}

/// Loads `size` bytes at offset `o` of CTA `rank`'s shared memory (checked by [`locate`]).
pub fn peer_load(c: &Ctx<'_>, rank: u32, o: u64, size: u32) -> u64 {
    c.cluster.shared(rank).map_or(0, |b| b.load(o, size))
}

/// Stores `size` bytes of `v` at offset `o` of CTA `rank`'s shared memory.
pub fn peer_store(c: &mut Ctx<'_>, rank: u32, o: u64, size: u32, v: u64) {
    if let Some(p) = c.cluster.peer(rank) {
        p.shared.store(o, size, v);
    }
}

/// An atomic read-modify-write of `size` bytes at the `.shared::cluster` offset `off` (outside
/// the executing CTA's own offsets); `None` when `off` is no cluster address. `f` gives the new
/// value (`None`: unchanged); the result is the old value.
pub fn rmw(
    c: &mut Ctx<'_>,
    off: u64,
    size: u32,
    lane: usize,
    addr: u64,
    f: impl FnOnce(u64) -> Option<u64>,
) -> Option<Result<u64, LaneFault>> {
    let r = match locate(c, off, u64::from(size))? {
        Ok(r) => r,
        Err(detail) => {
            return Some(Err(LaneFault {
                kind: FaultKind::OutOfBounds {
                    space: "shared::cluster".into(),
                    size,
                    detail,
                },
                lane: Some(lane as u32),
                address: Some(addr),
            }))
        }
    };
    let (rank, o) = r;
    let bytes = if rank == c.cluster.rank() {
        &mut *c.shared
    } else {
        match c.cluster.peer(rank) {
            Some(p) => p.shared,
            None => return Some(Ok(0)),
        }
    };
    let old = bytes.load(o, size);
    let new = f(old);
    if let Some(new) = new {
        bytes.store(o, size, new);
    }
    let wrote = new.is_some();
    c.peer_access(rank, o, lane, size, AccessKind::Rmw { wrote });
    Some(Ok(old))
}

/// Runs `body` (an mbarrier instruction) once for the lanes whose mbarrier address lies in
/// the executing CTA and once per peer CTA for the lanes whose address lies there, with that
/// peer's shared memory and mbarriers lent to the context; `None` when no lane names a peer.
pub fn per_peer(
    c: &mut Ctx<'_>,
    i: &DInstr,
    addr_of: impl Fn(&Ctx<'_>, usize) -> u64,
    body: fn(&mut Ctx<'_>, &DInstr) -> R,
) -> Option<R> {
    let own = c.cluster.rank();
    let mut groups = [0u32; crate::cluster::shape::MAX_CLUSTER_CTAS as usize];
    let mut any_peer = false;
    crate::exec::ctx::for_lanes(c.mask, |l| {
        let a = addr_of(c, l);
        let off = match window_of(a) {
            Window::Shared(o) => o,
            _ => a & 0xffff_ffff,
        };
        let rank = match decode(off) {
            Some((r, _)) if off >= CLUSTER_WINDOW => r,
            _ => own,
        };
        if (rank as usize) < groups.len() {
            groups[rank as usize] |= 1 << l;
            any_peer |= rank != own;
        }
    });
    if !any_peer {
        return None;
    }
    let mask = c.mask;
    let mut result = Ok(Flow::Next);
    for (rank, &lanes) in groups.iter().enumerate() {
        if lanes == 0 {
            continue;
        }
        let rank = rank as u32;
        c.mask = lanes;
        let r = if rank == own {
            body(c, i)
        } else {
            if rank >= c.cluster.size() {
                let l = lanes.trailing_zeros() as usize;
                c.mask = mask;
                return Some(Err(undefined(
                    l,
                    addr_of(c, l),
                    format!(
                        "the mbarrier address names CTA rank {rank}, but the cluster has {} CTA(s)",
                        c.cluster.size()
                    ),
                )));
            }
            c.cluster.swap(rank, c.shared, c.asyncs);
            c.peer_lent(rank);
            let r = body(c, i);
            crate::async_copy::state::mark_peer_change(c.asyncs);
            c.peer_lent(rank);
            c.cluster.swap(rank, c.shared, c.asyncs);
            r
        };
        if r.is_err() {
            c.mask = mask;
            return Some(r);
        }
        result = r;
    }
    c.mask = mask;
    Some(result)
}

/// Runs `f` with the shared memory and mbarriers of CTA `rank` as the context's own (the
/// executing CTA's when `rank` is its own).
///
/// # Errors
/// `rank` is not in the cluster, or `f`'s fault.
pub fn at_rank<T>(
    c: &mut Ctx<'_>,
    rank: u32,
    lane: usize,
    f: impl FnOnce(&mut Ctx<'_>) -> Result<T, LaneFault>,
) -> Result<T, LaneFault> {
    if rank == c.cluster.rank() {
        return f(c);
    }
    if rank >= c.cluster.size() {
        return Err(undefined(
            lane,
            0,
            format!(
                "the copy names CTA rank {rank}, but the cluster has {} CTA(s)",
                c.cluster.size()
            ),
        ));
    }
    c.cluster.swap(rank, c.shared, c.asyncs);
    c.peer_lent(rank);
    let r = f(c);
    crate::async_copy::state::mark_peer_change(c.asyncs);
    c.peer_lent(rank);
    c.cluster.swap(rank, c.shared, c.asyncs);
    r
}

/// The CTA ranks a copy into shared memory at offset `off` delivers to, with the offset in
/// each: the bits of `mask` (a `.multicast::cluster` copy, at the same offset in each CTA), or
/// the one CTA a `.shared::cluster` address names.
///
/// # Errors
/// A mask naming a CTA outside the cluster, or an empty mask.
pub fn targets(
    c: &Ctx<'_>,
    mask: Option<u64>,
    off: u64,
    lane: usize,
) -> Result<(Vec<u32>, u64), LaneFault> {
    let (rank, o) = rank_and_offset(c, off);
    let Some(m) = mask else {
        return Ok((vec![rank], o));
    };
    let m = m & 0xffff;
    let n = c.cluster.size();
    if m == 0 || m >> n != 0 {
        return Err(undefined(
            lane,
            off,
            format!(
                "the multicast ctaMask 0x{m:x} names no CTA or a CTA outside the cluster of {n}"
            ),
        ));
    }
    Ok(((0..n).filter(|r| m & (1 << r) != 0).collect(), o))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_round_trip() {
        assert_eq!(decode(encode(3, 0x40)), Some((3, 0x40)));
        assert_eq!(decode(0x40), None);
        assert_eq!(decode(encode(MAX_CLUSTER_CTAS, 0)), None);
        assert!(encode(MAX_CLUSTER_CTAS - 1, (1 << RANK_SHIFT) - 1) < 1 << 32);
    }
}
