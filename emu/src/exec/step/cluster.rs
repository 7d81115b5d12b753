//! Executing the cluster instructions (PTX ISA "mapa", "getctarank", "barrier.cluster") and
//! reaching the shared memory and mbarriers of the other CTAs of a cluster through
//! `.shared::cluster` addresses (see [`crate::exec::cluster`] for the address layout).

use super::{Ctx, Request};
use crate::exec::cluster::{decode, encode, WaitState, CLUSTER_WINDOW};
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::memory::{window_of, Window, SHARED_WINDOW};
use crate::exec::program::{AddrBase, AddrSpace, DAddr, DInstr, Extra, Flow};

type R = Result<Flow, LaneFault>;

fn undefined(lane: usize, addr: u64, detail: String) -> LaneFault {
    LaneFault {
        kind: FaultKind::Undefined { detail },
        lane: Some(lane as u32),
        address: Some(addr),
    }
}

/// Whether the instruction takes `.shared::cluster` addresses (else generic ones).
fn shared_form(i: &DInstr) -> bool {
    matches!(i.extra, Extra::Param(1))
}

/// The shared-window offset of `addr` (a `.shared::cluster` address, or a generic one).
fn window_offset(shared: bool, addr: u64, lane: usize) -> Result<u64, LaneFault> {
    if shared {
        return Ok(addr & 0xffff_ffff);
    }
    match window_of(addr) {
        Window::Shared(o) => Ok(o),
        Window::Local(_) | Window::Const(_) | Window::Param(_) | Window::Global(_) => {
            Err(undefined(
                lane,
                addr,
                format!("0x{addr:x} is not a generic address of shared memory"),
            ))
        }
    }
}

/// The CTA rank and offset that a shared-window offset names: a `.shared::cluster` address, or
/// one of the executing CTA's own offsets.
fn rank_and_offset(c: &Ctx<'_>, off: u64) -> (u32, u64) {
    decode(off).unwrap_or((c.cluster.rank(), off))
}

/// `mapa{.shared::cluster}.type d, a, b`: the address of `a`'s bytes in the CTA of rank `b`.
pub fn mapa(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let shared = shared_form(i);
    let a = c.fetch(&i.s[0]);
    let r = c.fetch(&i.s[1]);
    let size = c.cluster.size();
    let mut out = [0u64; 32];
    let mut err = None;
    super::for_lanes(c.mask, |l| {
        if err.is_some() {
            return;
        }
        let target = r[l] as u32;
        if target >= size {
            err = Some(undefined(
                l,
                a[l],
                format!("mapa to CTA rank {target}, but the cluster has {size} CTA(s)"),
            ));
            return;
        }
        match window_offset(shared, a[l], l) {
            Ok(off) => {
                let (_, o) = rank_and_offset(c, off);
                let m = encode(target, o);
                out[l] = if shared { m } else { SHARED_WINDOW + m };
            }
            Err(e) => err = Some(e),
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    c.write(&i.d[0], &out);
    Ok(Flow::Next)
}

/// `getctarank{.shared::cluster}.type d, a`: the rank of the CTA whose shared memory holds `a`.
pub fn getctarank(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let shared = shared_form(i);
    let a = c.fetch(&i.s[0]);
    let size = c.cluster.size();
    let mut out = [0u64; 32];
    let mut err = None;
    super::for_lanes(c.mask, |l| {
        if err.is_some() {
            return;
        }
        match window_offset(shared, a[l], l) {
            Ok(off) => {
                let (rank, _) = rank_and_offset(c, off);
                if rank >= size {
                    err = Some(undefined(
                        l,
                        a[l],
                        format!(
                            "the address names CTA rank {rank}, but the cluster has {size} CTA(s)"
                        ),
                    ));
                }
                out[l] = u64::from(rank);
            }
            Err(e) => err = Some(e),
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    c.write(&i.d[0], &out);
    Ok(Flow::Next)
}

/// `barrier.cluster.arrive{.release,.relaxed}{.aligned}`: each lane arrives at the cluster
/// barrier's current phase.
pub fn arrive(c: &mut Ctx<'_>, _i: &DInstr) -> R {
    let rank = c.cluster.rank();
    let warp = c.ids.warp;
    let mut err = None;
    let mask = c.mask;
    let barrier = c.cluster.barrier();
    let mut arrived = 0u32;
    super::for_lanes(mask, |l| {
        if err.is_none() {
            match barrier.arrive(rank, warp * 32 + l as u32) {
                Ok(()) => arrived |= 1 << l,
                Err(d) => err = Some(undefined(l, 0, d)),
            }
        }
    });
    if let Some(r) = c.race.as_deref_mut() {
        super::for_lanes(arrived, |l| r.cluster_arrive(warp as usize * 32 + l, c.pc));
    }
    match err {
        Some(mut e) => {
            e.address = None;
            Err(e)
        }
        None => Ok(Flow::Next),
    }
}

/// `barrier.cluster.wait{.acquire}{.aligned}`: lanes whose arrival's phase has not completed
/// wait for it (the CTA parks them; the cluster releases them).
pub fn wait(c: &mut Ctx<'_>, _i: &DInstr) -> R {
    let rank = c.cluster.rank();
    let warp = c.ids.warp;
    let mask = c.mask;
    let barrier = c.cluster.barrier();
    let mut pending = 0u32;
    let mut missing = None;
    let mut complete = 0u32;
    super::for_lanes(mask, |l| match barrier.wait(rank, warp * 32 + l as u32) {
        WaitState::Complete => complete |= 1 << l,
        WaitState::Pending => pending |= 1 << l,
        WaitState::NotArrived => {
            missing.get_or_insert(l);
        }
    });
    if let Some(l) = missing {
        return Err(LaneFault {
            kind: FaultKind::Undefined {
                detail:
                    "barrier.cluster.wait without a preceding barrier.cluster.arrive by the thread"
                        .into(),
            },
            lane: Some(l as u32),
            address: None,
        });
    }
    if let Some(r) = c.race.as_deref_mut() {
        super::for_lanes(complete, |l| r.cluster_waited(warp as usize * 32 + l));
    }
    if pending == 0 {
        return Ok(Flow::Next);
    }
    c.request = Request::ClusterWait(pending);
    Ok(Flow::Barrier)
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
            crate::exec::cluster::triple(ctaid)
        )));
    }
    Some(Ok((rank, o)))
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
    race_peer(
        c,
        rank,
        o,
        lane,
        size,
        crate::race::cta::Access::Rmw { wrote },
    );
    Some(Ok(old))
}

/// `--race`: lends CTA `rank`'s shadow of shared memory and mbarrier clocks to the executing
/// CTA's detector (calling it again gives them back), so that accesses to that CTA's shared
/// memory are checked against its history (docs/race.md, "Clusters").
pub(super) fn swap_race(c: &mut Ctx<'_>, rank: u32) {
    if let Some(me) = c.race.as_deref_mut() {
        if let Some(peer) = c.cluster.race(rank) {
            me.swap_memory(peer);
        }
    }
}

/// `--race`: lane `lane`'s access of `size` bytes at offset `o` of CTA `rank`'s shared memory
/// (a peer's, through a `.shared::cluster` address), checked against that CTA's shadow.
#[cold]
pub(super) fn race_peer(
    c: &mut Ctx<'_>,
    rank: u32,
    o: u64,
    lane: usize,
    size: u32,
    a: crate::race::cta::Access,
) {
    if c.race.is_none() {
        return;
    }
    let own = rank == c.cluster.rank();
    if !own {
        swap_race(c, rank);
    }
    let (t, pc) = (c.ids.warp as usize * 32 + lane, c.pc);
    if let Some(r) = c.race.as_deref_mut() {
        r.access(t, pc, true, o, size, a);
    }
    if !own {
        swap_race(c, rank);
    }
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
    let mut groups = [0u32; crate::exec::cluster::MAX_CLUSTER_CTAS as usize];
    let mut any_peer = false;
    super::for_lanes(c.mask, |l| {
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
            swap_race(c, rank);
            let r = body(c, i);
            super::async_copy::mark_peer_change(c.asyncs);
            swap_race(c, rank);
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

/// The CTA-relative form of lane `lane`'s shared address `a` (a `.shared::cluster` address's
/// offset, or an own offset): what a multicast operation means by "the same CTA-relative
/// offset in each destination CTA" (PTX ISA "cp.async.bulk", "cp.async.bulk.tensor",
/// "tcgen05.commit", "clusterlaunchcontrol.try_cancel").
pub fn cta_relative(c: &Ctx<'_>, a: &DAddr, lane: usize) -> DAddr {
    let addr = super::mem::lane_addr(c, a, lane);
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
    swap_race(c, rank);
    let r = f(c);
    super::async_copy::mark_peer_change(c.asyncs);
    swap_race(c, rank);
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
