//! The hooks between the machine and its checkers, as miri's `Machine` hooks fan out to its
//! data-race and weak-memory detectors: the memory and synchronisation services, and the
//! instructions through them, report what happens (an access, a fence, a barrier arrival or
//! release, an mbarrier phase, an asynchronous operation issued or completed); the checkers
//! subscribe here. An instruction never names a checker, so a new instruction gets every
//! check, and a new check is a new subscriber of these hooks.
//!
//! The subscribers of one CTA are its [`Observers`]: the race detector (`--race`,
//! [`crate::race`]), the non-coherent-load check (`--check-nc`, [`crate::exec::nc_check`]) and
//! the L1 model (`--cache-model l1`, [`crate::exec::l1`], which also serves global loads from
//! the SM's cache). The proxy checker (`--proxy-check`, [`crate::exec::proxy_check`]) and the
//! visibility checks of Tensor Memory (`crate::tcgen05::observe`, `async_writes`) keep their
//! state with the CTA's async state and Tensor Memory; they subscribe here too.
//!
//! - [`access`]: loads, stores, atomics and element accesses, a peer CTA's shared memory, the
//!   L1 model's service of global memory;
//! - [`sync`]: fences, warp and CTA barriers, the cluster barrier, mbarrier phases;
//! - [`asyncs`]: `cp.async` copies, bulk and tensor copies and their groups, the asynchronous
//!   tensor-core operations, and the async proxy.

pub mod access;
pub mod asyncs;
pub mod events;
pub mod observers;
pub mod sync;

pub use events::{AccessKind, AsyncAccess, MbarrierEvent};
pub use observers::Observers;

use crate::exec::ctx::Ctx;
use crate::exec::fault::LaneFault;
use crate::exec::program::DInstr;

impl Ctx<'_> {
    /// Before `ins` executes (the scheduler's hook): when it reads the accumulator registers of
    /// a `wgmma.mma_async` still in flight, the implicit wait or the fault
    /// ([`crate::wgmma::accumulators::before_read`]).
    ///
    /// # Errors
    /// The early read's fault, or a fault of the products the implicit wait retired.
    #[inline(always)]
    pub fn before_instruction(&mut self, ins: &DInstr) -> Result<(), LaneFault> {
        if self.wgmma.busy {
            crate::wgmma::accumulators::before_read(self, ins)
        } else {
            Ok(())
        }
    }
}
