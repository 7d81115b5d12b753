//! The decoded form of the bulk-copy, tensor-copy and tensor-map instructions and the proxy
//! fences (the payload of [`crate::exec::program::Extra::Tma`]).

use crate::exec::program::operand::{DAddr, Src};
use crate::ir::tma::Tma;

/// A decoded bulk-copy or tensor-map instruction.
#[derive(Clone, Debug)]
pub struct TmaInstr {
    /// The instruction.
    pub op: Tma,
    /// Destination address.
    pub dst: Option<DAddr>,
    /// Source address.
    pub src: Option<DAddr>,
    /// Tensor-map address.
    pub tmap: Option<DAddr>,
    /// mbarrier address.
    pub mbar: Option<DAddr>,
    /// Tensor coordinates.
    pub coords: Vec<Src>,
    /// im2col offsets.
    pub offsets: Vec<Src>,
    /// Size, wait count or new field value.
    pub value: Src,
    /// `tensormap.replace` ordinal; fence coverage bits for `fence.proxy.async`.
    pub ordinal: u32,
    /// The `ctaMask` of a `.multicast::cluster` copy (else `Src::None`).
    pub mask: Src,
}
