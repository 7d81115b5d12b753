//! The decoded form of the `wgmma` instructions (the payload of
//! [`crate::exec::program::Extra::Wgmma`]).

use crate::exec::program::operand::{Dst, Src};
use crate::ir::Wgmma;

/// A decoded wgmma instruction: its operands, resolved.
#[derive(Clone, Debug)]
pub struct WgmmaInstr {
    /// The instruction.
    pub op: Wgmma,
    /// D's registers, written on retirement.
    pub d: Vec<Dst>,
    /// The same registers as sources (C is D).
    pub c: Vec<Src>,
    /// A's registers (A from registers), else empty.
    pub a: Vec<Src>,
    /// A's descriptor (A from shared memory), else [`Src::None`].
    pub a_desc: Src,
    /// B's descriptor.
    pub b_desc: Src,
    /// `scale-d`: a predicate or an immediate.
    pub scale_d: Src,
    /// `imm-scale-a` is −1.
    pub neg_a: bool,
    /// `imm-scale-b` is −1.
    pub neg_b: bool,
    /// `imm-trans-a` is 1 (A is M-major).
    pub trans_a: bool,
    /// `imm-trans-b` is 1 (B is N-major).
    pub trans_b: bool,
    /// `N` of `wgmma.wait_group`.
    pub wait: u32,
    /// The module's target SM (it selects the floating-point accumulation model).
    pub sm: u32,
    /// D's register names, in vector order (for fault reports).
    pub names: Vec<String>,
}
