//! The decoded form of the warp-level matrix instructions (the payload of
//! [`crate::exec::program::Extra::Matrix`]).

use crate::exec::program::operand::{DAddr, Dst, Src};
use crate::ir::WarpMatrix;

/// A decoded warp-level matrix instruction: its fragments' registers, in vector order.
#[derive(Clone, Debug)]
pub struct MatrixInstr {
    /// The instruction.
    pub op: WarpMatrix,
    /// The registers written (D of mma, ldmatrix's vector, movmatrix's destination).
    pub d: Vec<Dst>,
    /// The registers read: A of mma, stmatrix's vector, movmatrix's source.
    pub a: Vec<Src>,
    /// B of mma.
    pub b: Vec<Src>,
    /// C of mma.
    pub c: Vec<Src>,
    /// The address of ldmatrix/stmatrix/wmma.load/wmma.store.
    pub addr: Option<DAddr>,
    /// The stride of wmma.load/wmma.store in elements ([`Src::None`]: the default).
    pub stride: Src,
    /// The module's target SM (it selects the floating-point accumulation model).
    pub sm: u32,
}
