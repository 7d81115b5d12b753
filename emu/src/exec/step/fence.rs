//! `fence` and `membar` (PTX ISA "membar/fence"): no effect on the interpreter's coherent,
//! sequentially consistent memory; with the L1 model they invalidate the SM's L1, and the
//! race detector (`--race`) orders the fencing thread's accesses.

use crate::exec::ctx::{for_lanes, Ctx};
use crate::exec::fault::LaneFault;
use crate::exec::program::{DInstr, Flow};

type R = Result<Flow, LaneFault>;

/// `fence`, `membar`: no effect on a coherent memory; with the L1 model they invalidate the
/// SM's L1 (as the hardware does to make other SMs' writes visible).
pub fn fence(c: &mut Ctx<'_>, _i: &DInstr) -> R {
    if let Some(l1) = c.l1 {
        l1.invalidate(c.cta_linear());
    }
    let (mask, warp, pc) = (c.mask, c.ids.warp as usize, c.pc);
    if let Some(r) = c.race.as_deref_mut() {
        for_lanes(mask, |l| r.fence(warp * 32 + l, pc));
    }
    Ok(Flow::Next)
}
