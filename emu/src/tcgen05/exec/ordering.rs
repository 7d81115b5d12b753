//! `tcgen05.wait::ld/st` and `tcgen05.fence::*` (PTX ISA "tcgen05.wait", "tcgen05.fence"),
//! and the thread-synchronisation points (a CTA barrier's arrival and release) that the
//! Tensor Memory checks of [`crate::tcgen05::memory`] follow.

use crate::exec::ctx::Ctx;
use crate::exec::fault::LaneFault;
use crate::exec::program::{DInstr, Flow};
use crate::ir::{Tcgen05, Tcgen05Fence, Tcgen05Wait};
use crate::tcgen05::exec::{collective, decoded, undefined};
use crate::tcgen05::memory::{Access, TensorMemory};

type R = Result<Flow, LaneFault>;

/// `tcgen05.wait::ld/st.sync.aligned`: the warp's pending loads or stores are complete.
pub fn wait(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = decoded(i)?;
    let Tcgen05::Wait(w) = m.op else {
        return Err(undefined(
            "tcgen05.wait decoded as another instruction".into(),
        ));
    };
    let (what, access) = match w {
        Tcgen05Wait::Ld => ("tcgen05.wait::ld", Access::Load),
        Tcgen05Wait::St => ("tcgen05.wait::st", Access::Store),
    };
    if let Err(flow) = collective(c, i, what)? {
        return Ok(flow);
    }
    let warp = c.ids.warp;
    if let Some(t) = c.tmem.as_mut() {
        t.wait(warp, access);
    }
    Ok(Flow::Next)
}

/// `tcgen05.fence::before_thread_sync/after_thread_sync`: ordering only; every access is
/// already complete when it returns. Checked, `after_thread_sync` makes what each executing
/// thread has observed of mbarrier phases count for its later `tcgen05.ld`
/// ([`crate::tcgen05::observe`]).
pub fn fence(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let m = decoded(i)?;
    if m.op != Tcgen05::Fence(Tcgen05Fence::AfterThreadSync) {
        return Ok(Flow::Next);
    }
    let (warp, mut mask) = (c.ids.warp, c.mask);
    if let Some(t) = c.tmem.as_mut().filter(|t| t.checked()) {
        while mask != 0 {
            let lane = mask.trailing_zeros();
            mask &= mask - 1;
            t.observe.fence_after(warp * 32 + lane);
        }
    }
    Ok(Flow::Next)
}

/// Lanes `mask` of warp `warp` arrive at named barrier `id` (checked mode's observations).
pub(crate) fn barrier_arrive(t: &mut TensorMemory, id: u32, warp: u32, mut mask: u32) {
    while mask != 0 {
        let lane = mask.trailing_zeros();
        mask &= mask - 1;
        t.observe.barrier_arrive(id, warp * 32 + lane);
    }
}

/// Named barrier `id` releases the waiting `(warp, lanes)` (checked mode's observations).
pub(crate) fn barrier_release(
    t: &mut TensorMemory,
    id: u32,
    waiters: impl Iterator<Item = (u32, u32)>,
) {
    let threads = waiters.flat_map(|(warp, lanes)| {
        (0..32u32)
            .filter(move |l| lanes & (1 << l) != 0)
            .map(move |l| warp * 32 + l)
    });
    t.observe.barrier_release(id, threads);
}
