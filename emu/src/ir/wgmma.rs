//! The typed payloads of the warpgroup-level matrix instructions (PTX ISA "Asynchronous
//! Warpgroup Level Matrix Multiply-Accumulate Instructions"): `wgmma.mma_async`, `wgmma.fence`,
//! `wgmma.commit_group` and `wgmma.wait_group`.
//!
//! `.sync.aligned` is mandatory on all of them, so it is implied rather than stored. Which
//! shape goes with which types, and the operand forms, are checked by `validate/wgmma.rs`.

use super::mma::{MmaBitOp, MmaElem};

/// One warpgroup-level instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wgmma {
    /// `wgmma.fence.sync.aligned` — no operands.
    Fence,
    /// `wgmma.commit_group.sync.aligned` — no operands.
    CommitGroup,
    /// `wgmma.wait_group.sync.aligned N` — `N`.
    WaitGroup,
    /// `wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype{.satfinite}{.and.popc}` —
    /// `d, a-desc|a, b-desc, scale-d{, imm-scale-a, imm-scale-b{, imm-trans-a}{, imm-trans-b}}`.
    MmaAsync(WgmmaMma),
}

/// `wgmma.mma_async`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WgmmaMma {
    /// N of `.m64nNkK`.
    pub n: u32,
    /// K of `.m64nNkK` as written (the validator checks it against the input type).
    pub k: u32,
    /// Type of D (and C, which is D).
    pub d: MmaElem,
    /// Type of A.
    pub a: MmaElem,
    /// Type of B.
    pub b: MmaElem,
    /// `.satfinite` (integer forms).
    pub satfinite: bool,
    /// `.and.popc` (single-bit forms).
    pub bitop: Option<MmaBitOp>,
}

impl WgmmaMma {
    /// K for the input type: every wgmma shape spans 32 bytes of K.
    pub fn k_of_type(&self) -> u32 {
        256 / self.a.bits()
    }

    /// Registers of D: one per `.f32`/`.s32` element, two `.f16` elements per register.
    pub fn d_regs(&self) -> u32 {
        let elems = 64 * self.n / 128;
        if self.d == MmaElem::F16 {
            elems / 2
        } else {
            elems
        }
    }

    /// Registers of an A fragment (A from registers): 16 rows × 32 bytes per warp.
    pub fn a_regs(&self) -> u32 {
        4
    }

    /// Whether the form takes the transpose immediates (`.f16`/`.bf16` inputs).
    pub fn has_trans(&self) -> bool {
        matches!(self.a, MmaElem::F16 | MmaElem::Bf16)
    }

    /// Whether the form takes the scale (negate) immediates (floating-point inputs).
    pub fn has_scale(&self) -> bool {
        !self.a.is_integer()
    }

    /// The shape as written, without the dot.
    pub fn shape_name(&self) -> String {
        format!("m64n{}k{}", self.n, self.k)
    }
}
