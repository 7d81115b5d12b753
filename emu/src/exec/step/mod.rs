//! The instructions of the small families, each a lane loop over pure semantics functions:
//! integer, floating-point, bit and conversion arithmetic (with their lowering helpers),
//! loads, stores and atomics, moves and address conversions, control flow and barriers, and
//! the warp collectives. The larger families (mma, wgmma, tcgen05, TMA, async copies,
//! clusters) have folders of their own at the crate root; every instruction executes against
//! [`crate::exec::ctx::Ctx`].

pub mod atom;
pub mod bits;
pub mod control;
pub mod convert;
pub mod fence;
pub mod float;
pub mod float_cmp;
pub mod float_fn;
pub mod hints;
pub mod int;
pub mod mem;
pub mod mov;
pub mod packed;
pub mod warp_ops;
