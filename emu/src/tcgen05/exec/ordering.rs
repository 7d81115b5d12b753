//! `tcgen05.wait::ld/st` and `tcgen05.fence::*` (PTX ISA "tcgen05.wait", "tcgen05.fence").
//! The other thread-synchronisation points the Tensor Memory checks of
//! [`crate::tcgen05::memory`] follow (CTA barriers, mbarrier phases) reach them through the
//! synchronisation hooks ([`crate::exec::hooks::sync`]).

use crate::exec::ctx::Ctx;
use crate::exec::fault::LaneFault;
use crate::exec::program::{DInstr, Flow};
use crate::ir::{Tcgen05, Tcgen05Fence, Tcgen05Wait};
use crate::tcgen05::exec::{collective, decoded, undefined};
use crate::tcgen05::memory::Access;

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
