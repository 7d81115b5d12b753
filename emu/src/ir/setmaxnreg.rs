//! IR of `setmaxnreg` (PTX ISA "Miscellaneous Instructions: setmaxnreg"): a hint that
//! releases or requests per-thread registers of a warp group, used by warp-specialised
//! kernels on sm_90a and later.

/// Qualifiers of `setmaxnreg.{inc,dec}.sync.aligned.u32 imm-reg-count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Setmaxnreg {
    /// `.inc` (request registers) or `.dec` (release them).
    pub inc: bool,
    /// `.sync.aligned` written (ptxas requires both).
    pub sync_aligned: bool,
    /// The type written (`.u32`; ptxas also takes `.s32`).
    pub ty: crate::ir::Type,
}
