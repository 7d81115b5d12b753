//! The instructions that only hint, with no effect on values here: `prefetch`, `prefetchu`,
//! `applypriority`, `discard`, `nanosleep` and the like ([`nop`]), and `createpolicy`, whose
//! cache policy is an opaque value.

use crate::exec::ctx::Ctx;
use crate::exec::fault::LaneFault;
use crate::exec::program::{DInstr, Flow};

type R = Result<Flow, LaneFault>;

/// Instructions with no effect on values (cache hints, prefetches, `nanosleep`, fences in
/// this sequentially consistent interpreter).
pub fn nop(_c: &mut Ctx<'_>, _i: &DInstr) -> R {
    Ok(Flow::Next)
}

/// `createpolicy`: an opaque 64-bit policy (a fixed tag that encodes nothing).
pub fn createpolicy(c: &mut Ctx<'_>, i: &DInstr) -> R {
    let out = [0x0c0f_fee0_0000_0000u64; 32];
    c.write(&i.d[0], &out);
    Ok(Flow::Next)
}
