//! Qualifiers of the integer, floating-point, bit-manipulation and comparison instructions.

use super::*;

/// Arithmetic qualifiers shared by `add`, `sub` and `fma`: the type and the modifiers that
/// apply to it (integer `.sat`/`.cc`, float `.rnd`/`.ftz`/`.sat`, packed `.relu`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Arith {
    /// The operation type.
    pub ty: Type,
    /// Float rounding (`None`: the default, `.rn`, which also allows contraction).
    pub rnd: Option<FloatRounding>,
    /// `.ftz`
    pub ftz: bool,
    /// `.sat`
    pub sat: bool,
    /// `.cc`: write the carry flag (integer add/sub).
    pub cc: bool,
    /// `.relu` (f16/bf16 forms).
    pub relu: bool,
}

impl Arith {
    /// Plain arithmetic of type `ty` with no modifiers.
    pub fn plain(ty: Type) -> Arith {
        Arith {
            ty,
            rnd: None,
            ftz: false,
            sat: false,
            cc: false,
            relu: false,
        }
    }
}

/// The 16-bit float type of a mixed-precision instruction's narrow operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HalfType {
    /// `.f16`: IEEE binary16.
    F16,
    /// `.bf16`: bfloat16.
    BF16,
}

impl HalfType {
    /// The type qualifier it is written as.
    pub fn ty(self) -> Type {
        match self {
            HalfType::F16 => Type::F16,
            HalfType::BF16 => Type::BF16,
        }
    }

    /// The half type a type qualifier names, if it names one.
    pub fn of(ty: Type) -> Option<HalfType> {
        match ty {
            Type::F16 => Some(HalfType::F16),
            Type::BF16 => Some(HalfType::BF16),
            _ => None,
        }
    }
}

/// Qualifiers of the mixed-precision `add`, `sub` and `fma` (PTX ISA "Mixed Precision
/// Floating-Point Instructions"; PTX ISA 8.6, sm_100): `add{.rnd}{.sat}.f32.atype d, a, c`,
/// `sub` alike, and `fma.rnd{.sat}.f32.abtype d, a, b, c`. The narrow operands (`a`, and `b`
/// of `fma`) are converted exactly to `.f32`; `c` and `d` are `.f32`. There is no `.ftz` and
/// no mixed-precision `mul`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mixed {
    /// The type of the narrow operands.
    pub half: HalfType,
    /// `.rn .rz .rm .rp` (`None`: the default `.rn`, which also allows contraction; `fma`
    /// requires one, which the validator checks).
    pub rnd: Option<FloatRounding>,
    /// `.sat`: clamp the result to [0.0, 1.0], NaN to +0.0.
    pub sat: bool,
}

/// Which part of a product `mul`/`mad` keeps (integers only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MulMode {
    /// `.lo`: the low half.
    Lo,
    /// `.hi`: the high half.
    Hi,
    /// `.wide`: the whole double-width product.
    Wide,
}

/// Qualifiers of `mul` and `mad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mul {
    /// `.lo/.hi/.wide` for integers; `None` for floats.
    pub mode: Option<MulMode>,
    /// Type and modifiers (`mad.hi.sat.s32`, `mad.lo.cc`, float rounding).
    pub arith: Arith,
}

/// Qualifiers of `mul24`/`mad24`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mul24 {
    /// `.hi` (else `.lo`).
    pub hi: bool,
    /// `.sat` (`mad24.hi.sat.s32`).
    pub sat: bool,
    /// `.u32` or `.s32`.
    pub ty: Type,
}

/// Qualifiers of `div`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Div {
    /// The operation type.
    pub ty: Type,
    /// How a float division is computed; `Exact` for integers.
    pub kind: DivKind,
    /// `.ftz`
    pub ftz: bool,
}

/// The flavour of a float division or reciprocal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DivKind {
    /// Integers (and `.f64` in very old PTX without a rounding).
    Exact,
    /// `.approx`
    Approx,
    /// `.full` (f32 only; within 2 ulp)
    Full,
    /// `.rn/.rz/.rm/.rp`: IEEE-rounded.
    Rounded(FloatRounding),
}

/// Qualifiers of `abs` and `neg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unary {
    /// The operation type.
    pub ty: Type,
    /// `.ftz`
    pub ftz: bool,
}

/// Qualifiers of `min` and `max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MinMax {
    /// The operation type.
    pub ty: Type,
    /// `.ftz`
    pub ftz: bool,
    /// `.NaN`: propagate NaN inputs.
    pub nan: bool,
    /// `.xorsign.abs`
    pub xorsign_abs: bool,
    /// `.relu` (integer s32 and half forms).
    pub relu: bool,
    /// `.u16x2` / `.s16x2`: two 16-bit integer lanes packed in 32 bits; `ty` is then `.u32`
    /// or `.s32`, giving the lanes' signedness.
    pub packed16: bool,
}

/// Qualifiers of `addc`/`subc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Carry {
    /// `.cc`: also write the carry flag.
    pub cc: bool,
    /// `.u32/.s32/.u64/.s64`.
    pub ty: Type,
}

/// Qualifiers of `madc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Madc {
    /// `.hi` (else `.lo`).
    pub hi: bool,
    /// `.cc`
    pub cc: bool,
    /// `.u32/.s32/.u64/.s64`.
    pub ty: Type,
}

/// Qualifiers of `bfind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bfind {
    /// `.shiftamt`: return a left-shift amount instead of a bit position.
    pub shiftamt: bool,
    /// `.u32/.s32/.u64/.s64`.
    pub ty: Type,
}

/// `.clamp` or `.wrap` for shift-like instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShiftMode {
    /// Shift amounts past the width saturate.
    Clamp,
    /// Shift amounts are taken modulo the width.
    Wrap,
}

/// Qualifiers of `szext`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Szext {
    /// Clamp or wrap the bit count.
    pub mode: ShiftMode,
    /// `.u32` (zero-extend) or `.s32` (sign-extend).
    pub ty: Type,
}

/// Qualifiers of `dp4a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dp {
    /// Type of a's bytes (`.u32/.s32`).
    pub a_ty: Type,
    /// Type of b's bytes.
    pub b_ty: Type,
}

/// Qualifiers of `dp2a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dp2a {
    /// `.hi` (else `.lo`): which half of b.
    pub hi: bool,
    /// Type of a's halves.
    pub a_ty: Type,
    /// Type of b's bytes.
    pub b_ty: Type,
}

/// Qualifiers of `shf`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shf {
    /// `.l` (else `.r`).
    pub left: bool,
    /// `.wrap` or `.clamp`.
    pub mode: ShiftMode,
}

/// The mode of `prmt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrmtMode {
    /// `.f4e`: forward 4 extract.
    F4e,
    /// `.b4e`: backward 4 extract.
    B4e,
    /// `.rc8`: replicate 8.
    Rc8,
    /// `.ecl`: edge clamp left.
    Ecl,
    /// `.ecr`: edge clamp right.
    Ecr,
    /// `.rc16`: replicate 16.
    Rc16,
}

/// Qualifiers of `rcp`, `sqrt`, `rsqrt`, `sin`, `cos`, `lg2`, `ex2`, `tanh`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatFn {
    /// The operation type.
    pub ty: Type,
    /// `.approx`, `.approx.ftz.f64` forms, or an IEEE rounding.
    pub kind: DivKind,
    /// `.ftz`
    pub ftz: bool,
}

/// Qualifiers of `testp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Testp {
    /// What is tested.
    pub class: TestpClass,
    /// `.f32` or `.f64`.
    pub ty: Type,
}

/// The property `testp` tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TestpClass {
    /// `.finite`
    Finite,
    /// `.infinite`
    Infinite,
    /// `.number`
    Number,
    /// `.notanumber`
    NotANumber,
    /// `.normal`
    Normal,
    /// `.subnormal`
    Subnormal,
}

/// A comparison operator of `setp`, `set` and `slct`-like instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `eq`
    Eq,
    /// `ne`
    Ne,
    /// `lt`
    Lt,
    /// `le`
    Le,
    /// `gt`
    Gt,
    /// `ge`
    Ge,
    /// `lo`: unsigned lower.
    Lo,
    /// `ls`: unsigned lower or same.
    Ls,
    /// `hi`: unsigned higher.
    Hi,
    /// `hs`: unsigned higher or same.
    Hs,
    /// `equ`: equal or unordered.
    Equ,
    /// `neu`
    Neu,
    /// `ltu`
    Ltu,
    /// `leu`
    Leu,
    /// `gtu`
    Gtu,
    /// `geu`
    Geu,
    /// `num`: both are numbers.
    Num,
    /// `nan`: either is NaN.
    Nan,
}

/// A boolean operator combining a comparison with a third predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    /// `.and`
    And,
    /// `.or`
    Or,
    /// `.xor`
    Xor,
}

/// Qualifiers of `setp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Setp {
    /// The comparison.
    pub cmp: CmpOp,
    /// The combining operator, if a third predicate operand is given.
    pub bool_op: Option<BoolOp>,
    /// `.ftz`
    pub ftz: bool,
    /// The type of the compared operands.
    pub ty: Type,
}

/// Qualifiers of `set`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Set {
    /// The comparison.
    pub cmp: CmpOp,
    /// The combining operator.
    pub bool_op: Option<BoolOp>,
    /// `.ftz`
    pub ftz: bool,
    /// Destination type (`.u32/.s32/.f32`, …).
    pub dst: Type,
    /// Source type.
    pub src: Type,
}

/// Qualifiers of `slct`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slct {
    /// `.ftz` (with an `.f32` selector).
    pub ftz: bool,
    /// Type of the selected operands.
    pub dst: Type,
    /// Type of the selector (`.s32` or `.f32`).
    pub sel: Type,
}
