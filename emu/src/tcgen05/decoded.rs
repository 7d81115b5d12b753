//! The decoded form of the tcgen05 instructions: [`TmemInstr`] for the `.sync.aligned`
//! instructions and `tcgen05.cp`/`shift` (the payload of
//! [`crate::exec::program::Extra::Tmem`]), [`MmaDInstr`] for `tcgen05.mma` and
//! `tcgen05.commit` ([`crate::exec::program::Extra::Tc5Mma`]).

use crate::exec::program::operand::{DAddr, Dst, Src};
use crate::ir::Tcgen05;

/// A decoded `tcgen05` instruction: its operands, resolved.
#[derive(Clone, Debug)]
pub struct TmemInstr {
    /// The instruction.
    pub op: Tcgen05,
    /// `taddr` (ld, st, shift, dealloc).
    pub taddr: Src,
    /// The constant added to `taddr` (`[reg+imm]`).
    pub taddr_offset: i64,
    /// `immHalfSplitoff` of `.16x32bx2`.
    pub split: u32,
    /// `tcgen05.ld`: the registers loaded, in vector order.
    pub dsts: Vec<Dst>,
    /// `tcgen05.st`: the registers stored, in vector order.
    pub srcs: Vec<Src>,
    /// `tcgen05.ld.red`: `redval`.
    pub redval: Dst,
    /// `nCols` (alloc, dealloc).
    pub ncols: Src,
    /// `tcgen05.alloc`: where the address goes.
    pub dst: Option<DAddr>,
    /// The vector's register names, for `--trace-tmem`.
    pub names: Vec<String>,
}

/// A Tensor Memory address operand: its register (or constant) and offset.
#[derive(Clone, Debug)]
pub struct TmemRef {
    /// The register or constant.
    pub src: Src,
    /// The constant offset written in brackets.
    pub offset: i64,
}

/// A decoded `tcgen05.mma` or `tcgen05.commit`.
#[derive(Clone, Debug)]
pub struct MmaDInstr {
    /// The instruction.
    pub op: Tcgen05,
    /// D's Tensor Memory address.
    pub d: Option<TmemRef>,
    /// A's Tensor Memory address (A from Tensor Memory).
    pub a_tmem: Option<TmemRef>,
    /// A's descriptor (A from shared memory).
    pub a_desc: Src,
    /// B's descriptor.
    pub b_desc: Src,
    /// The instruction descriptor.
    pub idesc: Src,
    /// `disable-output-lane` (empty when not written).
    pub disable: Vec<Src>,
    /// `enable-input-d`.
    pub enable: Src,
    /// `scale-input-d` (0 when not written).
    pub scale_input_d: u32,
    /// `.ws`: a `zero-column-mask-desc` was written.
    pub zero_mask: bool,
    /// Scale factors of A (block-scaled kinds).
    pub sfa: Option<TmemRef>,
    /// Scale factors of B (block-scaled kinds).
    pub sfb: Option<TmemRef>,
    /// The commit's mbarrier.
    pub mbar: Option<DAddr>,
    /// The commit's `ctaMask`.
    pub mask: Src,
    /// The module's target SM (it selects the accumulation model).
    pub sm: u32,
}
