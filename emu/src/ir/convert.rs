//! Qualifiers of the conversion instructions: `cvta`, `cvt` and `cvt.pack`.

use super::*;

/// Qualifiers of `cvta`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cvta {
    /// `.to`: generic → space (else space → generic).
    pub to: bool,
    /// The non-generic space.
    pub space: SpaceQual,
    /// `.u32` or `.u64`.
    pub ty: Type,
}

/// Qualifiers of `cvt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cvt {
    /// Destination type.
    pub dst: Type,
    /// Source type.
    pub src: Type,
    /// Rounding, if written.
    pub rnd: Option<CvtRounding>,
    /// `.ftz`
    pub ftz: bool,
    /// `.sat`
    pub sat: bool,
    /// `.relu`
    pub relu: bool,
    /// `.satfinite`
    pub satfinite: bool,
}

/// Qualifiers of `cvt.pack`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CvtPack {
    /// The narrow element type (`.u8/.s8/.u4/.s4/.u2/.s2` encoded by bit width).
    pub dst: Type,
    /// The source type (`.s32/.u32`).
    pub src: Type,
    /// `.b32` type of c when present.
    pub c: Option<Type>,
}
