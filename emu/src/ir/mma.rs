//! The typed payloads of the warp-level matrix instructions (PTX ISA "Warp Level Matrix Multiply-
//! Accumulate Instructions"): `mma.sync.aligned`, `ldmatrix`, `stmatrix` and `movmatrix`.
//!
//! `.sync.aligned` is mandatory on all of them, so it is implied rather than stored. Which
//! shape goes with which element types, and the register count of each fragment, are checked by
//! the validator (`mma/validate.rs`), which names the rule; the fragment layouts themselves live
//! with the executor (`mma/layout.rs`).

use crate::ir::SpaceQual;

/// One warp-level matrix instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WarpMatrix {
    /// `mma.sync.aligned.shape.alayout.blayout{.satfinite}.dtype.atype.btype.ctype{.bitOp.popc}`
    /// — `d, a, b, c`.
    Mma(Mma),
    /// `ldmatrix.sync.aligned.shape.num{.trans}{.ss}.type` — `d, [p]`.
    Ldmatrix(MatrixMove),
    /// `stmatrix.sync.aligned.shape.num{.trans}{.ss}.type` — `[p], r`.
    Stmatrix(MatrixMove),
    /// `movmatrix.sync.aligned.m8n8.trans.b16` — `d, a`.
    Movmatrix,
    /// `wmma.load.{a,b,c}.sync.aligned.layout.shape{.ss}.type` — `r, [p]{, stride}`.
    WmmaLoad(WmmaLoad),
    /// `wmma.store.d.sync.aligned.layout.shape{.ss}.type` — `[p], r{, stride}`.
    WmmaStore(WmmaStore),
    /// `wmma.mma.sync.aligned.alayout.blayout.shape.dtype{.atype.btype}.ctype{.satfinite}` —
    /// `d, a, b, c`.
    WmmaMma(WmmaMma),
}

/// `.mMnNkK` of `mma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaShape {
    /// `.m8n8k4` (f16 quad-pairs, f64)
    M8n8k4,
    /// `.m8n8k16` (s8/u8)
    M8n8k16,
    /// `.m8n8k32` (s4/u4)
    M8n8k32,
    /// `.m8n8k128` (b1)
    M8n8k128,
    /// `.m16n8k4` (tf32, f64)
    M16n8k4,
    /// `.m16n8k8` (f16, bf16, tf32, f64)
    M16n8k8,
    /// `.m16n8k16` (f16, bf16, f64, s8/u8, e4m3/e5m2)
    M16n8k16,
    /// `.m16n8k32` (s8/u8, s4/u4, e4m3/e5m2)
    M16n8k32,
    /// `.m16n8k64` (s4/u4)
    M16n8k64,
    /// `.m16n8k128` (b1)
    M16n8k128,
    /// `.m16n8k256` (b1)
    M16n8k256,
}

impl MmaShape {
    /// Every shape, for parsing.
    pub const ALL: [MmaShape; 11] = [
        MmaShape::M8n8k4,
        MmaShape::M8n8k16,
        MmaShape::M8n8k32,
        MmaShape::M8n8k128,
        MmaShape::M16n8k4,
        MmaShape::M16n8k8,
        MmaShape::M16n8k16,
        MmaShape::M16n8k32,
        MmaShape::M16n8k64,
        MmaShape::M16n8k128,
        MmaShape::M16n8k256,
    ];

    /// `(M, N, K)`.
    pub fn mnk(self) -> (u32, u32, u32) {
        match self {
            MmaShape::M8n8k4 => (8, 8, 4),
            MmaShape::M8n8k16 => (8, 8, 16),
            MmaShape::M8n8k32 => (8, 8, 32),
            MmaShape::M8n8k128 => (8, 8, 128),
            MmaShape::M16n8k4 => (16, 8, 4),
            MmaShape::M16n8k8 => (16, 8, 8),
            MmaShape::M16n8k16 => (16, 8, 16),
            MmaShape::M16n8k32 => (16, 8, 32),
            MmaShape::M16n8k64 => (16, 8, 64),
            MmaShape::M16n8k128 => (16, 8, 128),
            MmaShape::M16n8k256 => (16, 8, 256),
        }
    }

    /// The qualifier as written, without the dot.
    pub fn name(self) -> &'static str {
        match self {
            MmaShape::M8n8k4 => "m8n8k4",
            MmaShape::M8n8k16 => "m8n8k16",
            MmaShape::M8n8k32 => "m8n8k32",
            MmaShape::M8n8k128 => "m8n8k128",
            MmaShape::M16n8k4 => "m16n8k4",
            MmaShape::M16n8k8 => "m16n8k8",
            MmaShape::M16n8k16 => "m16n8k16",
            MmaShape::M16n8k32 => "m16n8k32",
            MmaShape::M16n8k64 => "m16n8k64",
            MmaShape::M16n8k128 => "m16n8k128",
            MmaShape::M16n8k256 => "m16n8k256",
        }
    }
}

/// An element type of an `mma` operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaElem {
    /// `.f16`
    F16,
    /// `.bf16`
    Bf16,
    /// `.tf32` (held in a 32-bit register; the low 13 bits are ignored)
    Tf32,
    /// `.f32`
    F32,
    /// `.f64`
    F64,
    /// `.s8`
    S8,
    /// `.u8`
    U8,
    /// `.s4`
    S4,
    /// `.u4`
    U4,
    /// `.b1`
    B1,
    /// `.e4m3` (FP8)
    E4m3,
    /// `.e5m2` (FP8)
    E5m2,
    /// `.s32`
    S32,
}

impl MmaElem {
    /// Every element type, for parsing.
    pub const ALL: [MmaElem; 13] = [
        MmaElem::F16,
        MmaElem::Bf16,
        MmaElem::Tf32,
        MmaElem::F32,
        MmaElem::F64,
        MmaElem::S8,
        MmaElem::U8,
        MmaElem::S4,
        MmaElem::U4,
        MmaElem::B1,
        MmaElem::E4m3,
        MmaElem::E5m2,
        MmaElem::S32,
    ];

    /// The qualifier as written, without the dot.
    pub fn name(self) -> &'static str {
        match self {
            MmaElem::F16 => "f16",
            MmaElem::Bf16 => "bf16",
            MmaElem::Tf32 => "tf32",
            MmaElem::F32 => "f32",
            MmaElem::F64 => "f64",
            MmaElem::S8 => "s8",
            MmaElem::U8 => "u8",
            MmaElem::S4 => "s4",
            MmaElem::U4 => "u4",
            MmaElem::B1 => "b1",
            MmaElem::E4m3 => "e4m3",
            MmaElem::E5m2 => "e5m2",
            MmaElem::S32 => "s32",
        }
    }

    /// The type named `s` (without the dot).
    pub fn from_name(s: &str) -> Option<MmaElem> {
        MmaElem::ALL.into_iter().find(|e| e.name() == s)
    }

    /// How many bits one element occupies in a fragment register (`.tf32` occupies 32).
    pub fn bits(self) -> u32 {
        match self {
            MmaElem::F16 | MmaElem::Bf16 => 16,
            MmaElem::Tf32 | MmaElem::F32 | MmaElem::S32 => 32,
            MmaElem::F64 => 64,
            MmaElem::S8 | MmaElem::U8 | MmaElem::E4m3 | MmaElem::E5m2 => 8,
            MmaElem::S4 | MmaElem::U4 => 4,
            MmaElem::B1 => 1,
        }
    }

    /// Elements per fragment register (one per 64-bit register for `.f64`).
    pub fn per_reg(self) -> u32 {
        match self {
            MmaElem::F64 => 1,
            e => 32 / e.bits(),
        }
    }

    /// Whether the type is an integer (or single-bit) type.
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            MmaElem::S8 | MmaElem::U8 | MmaElem::S4 | MmaElem::U4 | MmaElem::B1 | MmaElem::S32
        )
    }
}

/// `.row` or `.col`: how a fragment of A or B is laid out (only `m8n8k4` with `.f16` offers a
/// choice; every other shape is `.row.col`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaLayout {
    /// `.row`
    Row,
    /// `.col`
    Col,
}

impl MmaLayout {
    /// The qualifier as written, without the dot.
    pub fn name(self) -> &'static str {
        match self {
            MmaLayout::Row => "row",
            MmaLayout::Col => "col",
        }
    }
}

/// The logical operation of single-bit `mma` (`.and.popc` / `.xor.popc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaBitOp {
    /// `.and.popc`
    And,
    /// `.xor.popc`
    Xor,
}

/// `mma.sync.aligned`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mma {
    /// `.mMnNkK`
    pub shape: MmaShape,
    /// Layout of A.
    pub alayout: MmaLayout,
    /// Layout of B.
    pub blayout: MmaLayout,
    /// `.satfinite` (integer: clamp to the s32 range; FP8 with f32 output: clamp to finite).
    pub satfinite: bool,
    /// Type of D.
    pub d: MmaElem,
    /// Type of A.
    pub a: MmaElem,
    /// Type of B.
    pub b: MmaElem,
    /// Type of C.
    pub c: MmaElem,
    /// `.and.popc` / `.xor.popc` (single-bit only).
    pub bitop: Option<MmaBitOp>,
    /// `.rn` written on an `.f64` form (the only rounding these forms have).
    pub rn: bool,
}

/// `.m8n8`, `.m16n16` or `.m8n16` of `ldmatrix`/`stmatrix`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatrixShape {
    /// `.m8n8`
    M8n8,
    /// `.m16n16` (8-bit elements, `.trans` only; sm_100a)
    M16n16,
    /// `.m8n16` (packed 6- or 4-bit elements expanded to bytes; sm_100a)
    M8n16,
    /// `.m16n8` (`stmatrix` of 8-bit elements, `.trans` only; sm_100a)
    M16n8,
}

impl MatrixShape {
    /// The qualifier as written, without the dot.
    pub fn name(self) -> &'static str {
        match self {
            MatrixShape::M8n8 => "m8n8",
            MatrixShape::M16n16 => "m16n16",
            MatrixShape::M8n16 => "m8n16",
            MatrixShape::M16n8 => "m16n8",
        }
    }
}

/// `.x1`, `.x2` or `.x4`: how many matrices one instruction moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatrixCount {
    /// `.x1`
    X1,
    /// `.x2`
    X2,
    /// `.x4`
    X4,
}

impl MatrixCount {
    /// The count.
    pub fn count(self) -> u32 {
        match self {
            MatrixCount::X1 => 1,
            MatrixCount::X2 => 2,
            MatrixCount::X4 => 4,
        }
    }
}

/// The element format of `ldmatrix`/`stmatrix`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatrixFormat {
    /// `.b16`
    B16,
    /// `.b8`
    B8,
    /// `.b8x16.b6x16_p32`: sixteen 6-bit elements packed in 12 bytes with 4 bytes of padding,
    /// each loaded into a byte.
    B6x16P32,
    /// `.b8x16.b4x16_p64`: sixteen 4-bit elements packed in 8 bytes with 8 bytes of padding,
    /// each loaded into a byte.
    B4x16P64,
}

impl MatrixFormat {
    /// The qualifier(s) as written, without the leading dot.
    pub fn name(self) -> &'static str {
        match self {
            MatrixFormat::B16 => "b16",
            MatrixFormat::B8 => "b8",
            MatrixFormat::B6x16P32 => "b8x16.b6x16_p32",
            MatrixFormat::B4x16P64 => "b8x16.b4x16_p64",
        }
    }
}

/// The payload of `ldmatrix` and `stmatrix`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatrixMove {
    /// `.m8n8`, `.m16n16`, `.m8n16`
    pub shape: MatrixShape,
    /// `.x1/.x2/.x4`
    pub num: MatrixCount,
    /// `.trans`
    pub trans: bool,
    /// `.shared{::cta}` or generic.
    pub space: SpaceQual,
    /// Element format.
    pub format: MatrixFormat,
}

impl MatrixMove {
    /// Registers of the vector operand.
    pub fn regs(&self) -> u32 {
        match self.shape {
            // Each 16x16 matrix of bytes is two 32-bit registers per thread.
            MatrixShape::M16n16 => 2 * self.num.count(),
            MatrixShape::M8n8 | MatrixShape::M8n16 | MatrixShape::M16n8 => self.num.count(),
        }
    }
}

impl Mma {
    /// Whether this is the Volta-style `m8n8k4` with `.f16` inputs, computed by four quad-pairs.
    pub fn is_quad_pair(&self) -> bool {
        self.shape == MmaShape::M8n8k4 && self.a == MmaElem::F16
    }

    /// Elements of A, B and C/D each thread holds.
    pub fn elems_per_thread(&self) -> (u32, u32, u32) {
        if self.is_quad_pair() {
            return (4, 4, 8);
        }
        let (m, n, k) = self.shape.mnk();
        (m * k / 32, k * n / 32, m * n / 32)
    }

    /// Registers of the A, B, C and D fragments.
    pub fn regs(&self) -> [u32; 4] {
        let (a, b, c) = self.elems_per_thread();
        [
            a / self.a.per_reg(),
            b / self.b.per_reg(),
            c / self.c.per_reg(),
            c / self.d.per_reg(),
        ]
    }
}

/// `.mMnNkK` of `wmma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WmmaShape {
    /// `.m16n16k16`
    M16n16k16,
    /// `.m32n8k16`
    M32n8k16,
    /// `.m8n32k16`
    M8n32k16,
    /// `.m16n16k8` (tf32)
    M16n16k8,
    /// `.m8n8k4` (f64)
    M8n8k4,
    /// `.m8n8k32` (s4/u4)
    M8n8k32,
    /// `.m8n8k128` (b1)
    M8n8k128,
}

impl WmmaShape {
    /// Every shape, for parsing.
    pub const ALL: [WmmaShape; 7] = [
        WmmaShape::M16n16k16,
        WmmaShape::M32n8k16,
        WmmaShape::M8n32k16,
        WmmaShape::M16n16k8,
        WmmaShape::M8n8k4,
        WmmaShape::M8n8k32,
        WmmaShape::M8n8k128,
    ];

    /// `(M, N, K)`.
    pub fn mnk(self) -> (u32, u32, u32) {
        match self {
            WmmaShape::M16n16k16 => (16, 16, 16),
            WmmaShape::M32n8k16 => (32, 8, 16),
            WmmaShape::M8n32k16 => (8, 32, 16),
            WmmaShape::M16n16k8 => (16, 16, 8),
            WmmaShape::M8n8k4 => (8, 8, 4),
            WmmaShape::M8n8k32 => (8, 8, 32),
            WmmaShape::M8n8k128 => (8, 8, 128),
        }
    }

    /// The qualifier as written, without the dot.
    pub fn name(self) -> &'static str {
        match self {
            WmmaShape::M16n16k16 => "m16n16k16",
            WmmaShape::M32n8k16 => "m32n8k16",
            WmmaShape::M8n32k16 => "m8n32k16",
            WmmaShape::M16n16k8 => "m16n16k8",
            WmmaShape::M8n8k4 => "m8n8k4",
            WmmaShape::M8n8k32 => "m8n8k32",
            WmmaShape::M8n8k128 => "m8n8k128",
        }
    }
}

/// Which matrix a `wmma.load` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WmmaFrag {
    /// `.a` (M×K)
    A,
    /// `.b` (K×N)
    B,
    /// `.c` (M×N)
    C,
}

impl WmmaFrag {
    /// `(rows, columns)` of the matrix for `shape`.
    pub fn dims(self, shape: WmmaShape) -> (u32, u32) {
        let (m, n, k) = shape.mnk();
        match self {
            WmmaFrag::A => (m, k),
            WmmaFrag::B => (k, n),
            WmmaFrag::C => (m, n),
        }
    }
}

/// The registers of a `wmma` fragment of element type `ty` for matrix `frag` of `shape` (the
/// PTX ISA's "Matrix Fragments for WMMA" table).
pub fn wmma_regs(frag: WmmaFrag, shape: WmmaShape, ty: MmaElem) -> u32 {
    let (rows, cols) = frag.dims(shape);
    match (frag, ty) {
        // binary16 A and B fragments are eight registers whatever the shape (elements are
        // replicated across lanes).
        (WmmaFrag::A | WmmaFrag::B, MmaElem::F16) => 8,
        _ => (rows * cols / 32).div_ceil(ty.per_reg()),
    }
}

/// `wmma.load`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WmmaLoad {
    /// `.a`, `.b` or `.c`
    pub frag: WmmaFrag,
    /// `.row` or `.col`: how the matrix lies in memory.
    pub layout: MmaLayout,
    /// Shape.
    pub shape: WmmaShape,
    /// State space (generic when absent).
    pub space: SpaceQual,
    /// Element type.
    pub ty: MmaElem,
}

/// `wmma.store.d`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WmmaStore {
    /// `.row` or `.col`
    pub layout: MmaLayout,
    /// Shape.
    pub shape: WmmaShape,
    /// State space (generic when absent).
    pub space: SpaceQual,
    /// Element type.
    pub ty: MmaElem,
}

/// `wmma.mma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WmmaMma {
    /// Layout of A.
    pub alayout: MmaLayout,
    /// Layout of B.
    pub blayout: MmaLayout,
    /// Shape.
    pub shape: WmmaShape,
    /// Type of D.
    pub d: MmaElem,
    /// Type of A (`.f16` when only D and C are written).
    pub a: MmaElem,
    /// Type of B.
    pub b: MmaElem,
    /// Type of C.
    pub c: MmaElem,
    /// `.satfinite`
    pub satfinite: bool,
    /// `.rn` written (f64).
    pub rn: bool,
}
