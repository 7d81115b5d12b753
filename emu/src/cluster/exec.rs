//! Executing the cluster instructions (PTX ISA "mapa", "getctarank", "barrier.cluster"); the
//! `.shared::cluster` addresses they make and read are laid out in [`crate::cluster::dsmem`].

use crate::cluster::barrier::WaitState;
use crate::cluster::dsmem::{encode, rank_and_offset, undefined};
use crate::exec::ctx::Ctx;
use crate::exec::fault::{FaultKind, LaneFault};
use crate::exec::launch::Request;
use crate::exec::memory::{window_of, Window, SHARED_WINDOW};
use crate::exec::program::{DInstr, Extra, Flow};

type R = Result<Flow, LaneFault>;

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

/// `mapa{.shared::cluster}.type d, a, b`: the address of `a`'s bytes in the CTA of rank `b`.
pub fn mapa(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let shared = shared_form(i);
    let a = c.fetch(&i.s[0]);
    let r = c.fetch(&i.s[1]);
    let size = c.cluster.size();
    let mut out = [0u64; 32];
    let mut err = None;
    crate::exec::ctx::for_lanes(c.mask, |l| {
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
    crate::exec::ctx::for_lanes(c.mask, |l| {
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
    crate::exec::ctx::for_lanes(mask, |l| {
        if err.is_none() {
            match barrier.arrive(rank, warp * 32 + l as u32) {
                Ok(()) => arrived |= 1 << l,
                Err(d) => err = Some(undefined(l, 0, d)),
            }
        }
    });
    c.after_cluster_arrive(arrived);
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
    crate::exec::ctx::for_lanes(mask, |l| match barrier.wait(rank, warp * 32 + l as u32) {
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
    c.after_cluster_wait(complete);
    if pending == 0 {
        return Ok(Flow::Next);
    }
    c.request = Request::ClusterWait(pending);
    Ok(Flow::Barrier)
}
