//! `fence` and `membar` (PTX ISA "membar/fence"): no effect on the interpreter's coherent,
//! sequentially consistent memory; the checkers that follow them (the L1 model invalidates
//! the SM's L1, the race detector orders the fencing thread's accesses) subscribe to the
//! fence hook ([`crate::exec::hooks::sync`]).

use crate::exec::ctx::Ctx;
use crate::exec::fault::LaneFault;
use crate::exec::program::{DInstr, Flow};

type R = Result<Flow, LaneFault>;

/// `fence`, `membar`: no effect on a coherent memory; with the L1 model they invalidate the
/// SM's L1 (as the hardware does to make other SMs' writes visible).
pub fn fence(c: &mut Ctx<'_>, _i: &DInstr) -> R {
    c.after_fence();
    Ok(Flow::Next)
}
