//! The 32-bit instruction descriptor of `tcgen05.mma` (PTX ISA "Instruction descriptor"),
//! decoded field by field for each `.kind`; the bit table is in [`super::tcgen05_desc`].
//!
//! Decoding checks what the ISA's tables give: reserved bits zero, each type code one the kind
//! lists, the D type the kind allows, negate only where the kind allows it, saturate only for
//! `.kind::i8`, the maximum shift only with `.ws`, M and N among the shapes of the kind and
//! CTA group. Each failure names the field ([`IdescError`]).
//!
//! Shapes accepted, as ptxemu reads the ISA's shape table (dense):
//! * `.cta_group::1`: M = 64 with N a multiple of 8 in 8..=256; M = 128 with N a multiple of 16
//!   in 16..=256;
//! * `.cta_group::2`: M = 128 with N a multiple of 32 in 32..=256; M = 256 with N a multiple of
//!   16 in 16..=256;
//! * `.ws` (`.cta_group::1` only): M = 32, 64 or 128 with N = 64, 128 or 256.

/// The `.kind` of a `tcgen05.mma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaKind {
    /// `.kind::f16`: f16/bf16 inputs.
    F16,
    /// `.kind::tf32`.
    Tf32,
    /// `.kind::f8f6f4`: e4m3/e5m2/e2m3/e3m2/e2m1 inputs.
    F8f6f4,
    /// `.kind::i8`: u8/s8 inputs.
    I8,
    /// `.kind::mxf8f6f4`: block-scaled f8f6f4.
    MxF8f6f4,
    /// `.kind::mxf4`: block-scaled e2m1 with UE8M0 scales.
    MxF4,
    /// `.kind::mxf4nvf4`: block-scaled e2m1 with UE8M0 or UE4M3 scales.
    MxF4Nvf4,
}

impl MmaKind {
    /// The PTX spelling after `.kind::`.
    pub fn name(self) -> &'static str {
        match self {
            MmaKind::F16 => "f16",
            MmaKind::Tf32 => "tf32",
            MmaKind::F8f6f4 => "f8f6f4",
            MmaKind::I8 => "i8",
            MmaKind::MxF8f6f4 => "mxf8f6f4",
            MmaKind::MxF4 => "mxf4",
            MmaKind::MxF4Nvf4 => "mxf4nvf4",
        }
    }

    /// Whether the kind is block-scaled (`.block_scale`).
    pub fn block_scaled(self) -> bool {
        matches!(self, MmaKind::MxF8f6f4 | MmaKind::MxF4 | MmaKind::MxF4Nvf4)
    }

    /// K of one dense MMA: every kind reads 32 bytes of each row of A along K.
    pub fn k(self) -> u32 {
        match self {
            MmaKind::F16 => 16,
            MmaKind::Tf32 => 8,
            MmaKind::F8f6f4 | MmaKind::I8 | MmaKind::MxF8f6f4 => 32,
            MmaKind::MxF4 | MmaKind::MxF4Nvf4 => 64,
        }
    }
}

/// The element type of D.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// f16 (code 0).
    F16,
    /// f32 (code 1).
    F32,
    /// s32 (code 2).
    S32,
}

/// The element type of A or B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    /// IEEE binary16.
    F16,
    /// bfloat16.
    Bf16,
    /// tf32 (stored as 32 bits).
    Tf32,
    /// fp8 e4m3.
    E4m3,
    /// fp8 e5m2.
    E5m2,
    /// fp6 e2m3.
    E2m3,
    /// fp6 e3m2.
    E3m2,
    /// fp4 e2m1.
    E2m1,
    /// unsigned 8-bit integer.
    U8,
    /// signed 8-bit integer.
    S8,
}

impl ElemType {
    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            ElemType::F16 => "f16",
            ElemType::Bf16 => "bf16",
            ElemType::Tf32 => "tf32",
            ElemType::E4m3 => "e4m3",
            ElemType::E5m2 => "e5m2",
            ElemType::E2m3 => "e2m3",
            ElemType::E3m2 => "e3m2",
            ElemType::E2m1 => "e2m1",
            ElemType::U8 => "u8",
            ElemType::S8 => "s8",
        }
    }

    /// Bits the element occupies in shared memory or Tensor Memory for `kind`: the 6- and
    /// 4-bit types of `.kind::f8f6f4`/`::mxf8f6f4` sit in 8-bit containers; `.kind::mxf4*`
    /// packs e2m1 two to a byte.
    pub fn storage_bits(self, kind: MmaKind) -> u32 {
        match self {
            ElemType::F16 | ElemType::Bf16 => 16,
            ElemType::Tf32 => 32,
            ElemType::E2m1 if matches!(kind, MmaKind::MxF4 | MmaKind::MxF4Nvf4) => 4,
            _ => 8,
        }
    }
}

/// The scale-factor element type of the block-scaled kinds (bit 23).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScaleType {
    /// UE4M3 (code 0).
    Ue4m3,
    /// UE8M0 (code 1).
    Ue8m0,
}

/// The block-scaling fields of the descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockScaleFields {
    /// Scale-factor element type.
    pub scale: ScaleType,
    /// A scale-factor id (bits 29–30).
    pub a_sf_id: u8,
    /// B scale-factor id (bits 4–5).
    pub b_sf_id: u8,
}

/// A decoded instruction descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InstrDesc {
    /// The kind it was decoded for.
    pub kind: MmaKind,
    /// Sparsity flag (bit 2).
    pub sparse: bool,
    /// Sparsity selector (bits 0–1).
    pub sparse_selector: u8,
    /// Saturate (bit 3, `.kind::i8` only).
    pub saturate: bool,
    /// D type (F32 for the block-scaled kinds, which have no D-type field).
    pub d: DType,
    /// A type.
    pub a: ElemType,
    /// B type.
    pub b: ElemType,
    /// Negate A.
    pub negate_a: bool,
    /// Negate B.
    pub negate_b: bool,
    /// Transpose A: A is M-major.
    pub transpose_a: bool,
    /// Transpose B: B is N-major.
    pub transpose_b: bool,
    /// N.
    pub n: u32,
    /// M.
    pub m: u32,
    /// `.ws` maximum shift (0, 8, 16 or 32).
    pub max_shift: u32,
    /// Block-scaling fields (block-scaled kinds only).
    pub block: Option<BlockScaleFields>,
}

/// Why an instruction descriptor is invalid; `field` names the descriptor field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdescError {
    /// A reserved field is nonzero.
    Reserved {
        /// The bit range, e.g. "bit 6".
        bits: &'static str,
        /// The value found.
        value: u32,
    },
    /// A field holds a code the kind does not list.
    Invalid {
        /// The field, e.g. "atype (bits 7-9)".
        field: &'static str,
        /// The value found.
        value: u32,
        /// The kind.
        kind: MmaKind,
    },
    /// Fields that contradict each other or the instruction's qualifiers.
    Contradictory(String),
}

impl std::fmt::Display for IdescError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IdescError::Reserved { bits, value } => write!(
                f,
                "instruction descriptor {bits} is reserved and must be 0, found {value}"
            ),
            IdescError::Invalid { field, value, kind } => write!(
                f,
                "instruction descriptor field {field} = {value} is not valid for .kind::{}",
                kind.name()
            ),
            IdescError::Contradictory(what) => write!(f, "instruction descriptor: {what}"),
        }
    }
}

fn bits(x: u32, lo: u32, n: u32) -> u32 {
    (x >> lo) & ((1 << n) - 1)
}

fn elem(kind: MmaKind, code: u32, field: &'static str) -> Result<ElemType, IdescError> {
    use ElemType::*;
    let t = match (kind, code) {
        (MmaKind::F16, 0) => F16,
        (MmaKind::F16, 1) => Bf16,
        (MmaKind::Tf32, 2) => Tf32,
        (MmaKind::I8, 0) => U8,
        (MmaKind::I8, 1) => S8,
        (MmaKind::F8f6f4 | MmaKind::MxF8f6f4, 0) => E4m3,
        (MmaKind::F8f6f4 | MmaKind::MxF8f6f4, 1) => E5m2,
        (MmaKind::F8f6f4 | MmaKind::MxF8f6f4, 3) => E2m3,
        (MmaKind::F8f6f4 | MmaKind::MxF8f6f4, 4) => E3m2,
        (MmaKind::F8f6f4 | MmaKind::MxF8f6f4, 5) => E2m1,
        (MmaKind::MxF4 | MmaKind::MxF4Nvf4, 1) => E2m1,
        _ => {
            return Err(IdescError::Invalid {
                field,
                value: code,
                kind,
            })
        }
    };
    Ok(t)
}

fn reserved(x: u32, lo: u32, n: u32, name: &'static str) -> Result<(), IdescError> {
    match bits(x, lo, n) {
        0 => Ok(()),
        value => Err(IdescError::Reserved { bits: name, value }),
    }
}

/// Decodes `idesc` for `kind`, with the instruction's CTA group (1 or 2) and `.ws`.
pub fn decode_idesc(
    kind: MmaKind,
    idesc: u32,
    cta_group: u8,
    ws: bool,
) -> Result<InstrDesc, IdescError> {
    reserved(idesc, 6, 1, "bit 6")?;
    let block = kind.block_scaled();
    let (saturate, d, max_shift, block_fields);
    if block {
        reserved(idesc, 3, 1, "bit 3")?;
        reserved(idesc, 31, 1, "bit 31 (the sm_103 K = 96 form)")?;
        let scale = if bits(idesc, 23, 1) == 1 {
            ScaleType::Ue8m0
        } else {
            ScaleType::Ue4m3
        };
        if scale == ScaleType::Ue4m3 && kind != MmaKind::MxF4Nvf4 {
            return Err(IdescError::Invalid {
                field: "scale type (bit 23)",
                value: 0,
                kind,
            });
        }
        block_fields = Some(BlockScaleFields {
            scale,
            a_sf_id: bits(idesc, 29, 2) as u8,
            b_sf_id: bits(idesc, 4, 2) as u8,
        });
        saturate = false;
        d = DType::F32;
        max_shift = 0;
    } else {
        reserved(idesc, 23, 1, "bit 23")?;
        reserved(idesc, 29, 1, "bit 29")?;
        saturate = bits(idesc, 3, 1) == 1;
        if saturate && kind != MmaKind::I8 {
            return Err(IdescError::Invalid {
                field: "saturate (bit 3)",
                value: 1,
                kind,
            });
        }
        let dcode = bits(idesc, 4, 2);
        d = match (kind, dcode) {
            (MmaKind::F16, 0) => DType::F16,
            (MmaKind::F16 | MmaKind::Tf32 | MmaKind::F8f6f4, 1) => DType::F32,
            (MmaKind::I8, 2) => DType::S32,
            _ => {
                return Err(IdescError::Invalid {
                    field: "dtype (bits 4-5)",
                    value: dcode,
                    kind,
                })
            }
        };
        max_shift = match bits(idesc, 30, 2) {
            0 => 0,
            s if ws => 4 << s,
            s => {
                return Err(IdescError::Contradictory(format!(
                    "bits 30-31 (maximum shift) = {s} but the instruction is not .ws"
                )))
            }
        };
        block_fields = None;
    }
    let a = elem(kind, bits(idesc, 7, 3), "atype (bits 7-9)")?;
    let b = elem(kind, bits(idesc, 10, 3), "btype (bits 10-12)")?;
    let (negate_a, negate_b) = (bits(idesc, 13, 1) == 1, bits(idesc, 14, 1) == 1);
    if kind == MmaKind::I8 && (negate_a || negate_b) {
        let field = if negate_a {
            "negate A (bit 13)"
        } else {
            "negate B (bit 14)"
        };
        return Err(IdescError::Invalid {
            field,
            value: 1,
            kind,
        });
    }
    let (transpose_a, transpose_b) = (bits(idesc, 15, 1) == 1, bits(idesc, 16, 1) == 1);
    check_transpose(kind, a, transpose_a, "A")?;
    check_transpose(kind, b, transpose_b, "B")?;
    let sparse = bits(idesc, 2, 1) == 1;
    let sparse_selector = bits(idesc, 0, 2) as u8;
    if !sparse && sparse_selector != 0 {
        return Err(IdescError::Contradictory(format!(
            "sparsity selector (bits 0-1) = {sparse_selector} on a dense descriptor (bit 2 = 0)"
        )));
    }
    let n = bits(idesc, 17, 6) << 3;
    let m = bits(idesc, 24, 5) << 4;
    check_shape(kind, m, n, cta_group, ws)?;
    Ok(InstrDesc {
        kind,
        sparse,
        sparse_selector,
        saturate,
        d,
        a,
        b,
        negate_a,
        negate_b,
        transpose_a,
        transpose_b,
        n,
        m,
        max_shift,
        block: block_fields,
    })
}

/// Transpose (MN-major) is only defined for 8-bit-or-wider types (not e2m3/e3m2/e2m1).
fn check_transpose(kind: MmaKind, t: ElemType, on: bool, which: &str) -> Result<(), IdescError> {
    if on && matches!(t, ElemType::E2m3 | ElemType::E3m2 | ElemType::E2m1) {
        return Err(IdescError::Contradictory(format!(
            "transpose {which} is set but {which} is {} (.kind::{}): MN-major is only defined \
             for 8-, 16- and 32-bit types",
            t.name(),
            kind.name()
        )));
    }
    Ok(())
}

fn check_shape(kind: MmaKind, m: u32, n: u32, cta_group: u8, ws: bool) -> Result<(), IdescError> {
    let step_ok = |step: u32, lo: u32| n >= lo && n <= 256 && n.is_multiple_of(step);
    let ok = match (ws, cta_group, m) {
        (true, 1, 32 | 64 | 128) => matches!(n, 64 | 128 | 256),
        (false, 1, 64) => step_ok(8, 8) && !kind.block_scaled(),
        (false, 1, 128) => step_ok(if kind.block_scaled() { 8 } else { 16 }, 8),
        (false, 2, 128) => step_ok(32, 32),
        (false, 2, 256) => step_ok(16, 16),
        _ => false,
    };
    if ok {
        return Ok(());
    }
    let form = if ws { ".ws " } else { "" };
    Err(IdescError::Contradictory(format!(
        "M = {m} (bits 24-28), N = {n} (bits 17-22) is not a shape of {form}.cta_group::{cta_group} \
         .kind::{}",
        kind.name()
    )))
}

/// Encodes a descriptor (the inverse of [`decode_idesc`] for valid descriptors).
pub fn encode_idesc(d: &InstrDesc) -> u32 {
    let code = |t: ElemType| -> u32 {
        match t {
            ElemType::F16 | ElemType::U8 | ElemType::E4m3 => 0,
            ElemType::Bf16 | ElemType::S8 | ElemType::E5m2 => 1,
            ElemType::Tf32 => 2,
            ElemType::E2m3 => 3,
            ElemType::E3m2 => 4,
            ElemType::E2m1 if d.kind.block_scaled() && d.kind != MmaKind::MxF8f6f4 => 1,
            ElemType::E2m1 => 5,
        }
    };
    let mut x = u32::from(d.sparse_selector & 3)
        | (u32::from(d.sparse) << 2)
        | (code(d.a) << 7)
        | (code(d.b) << 10)
        | (u32::from(d.negate_a) << 13)
        | (u32::from(d.negate_b) << 14)
        | (u32::from(d.transpose_a) << 15)
        | (u32::from(d.transpose_b) << 16)
        | ((d.n >> 3) << 17)
        | ((d.m >> 4) << 24);
    match d.block {
        Some(b) => {
            x |= (u32::from(b.b_sf_id & 3) << 4)
                | (u32::from(b.scale == ScaleType::Ue8m0) << 23)
                | (u32::from(b.a_sf_id & 3) << 29);
        }
        None => {
            let dt = match d.d {
                DType::F16 => 0,
                DType::F32 => 1,
                DType::S32 => 2,
            };
            let shift = match d.max_shift {
                8 => 1,
                16 => 2,
                32 => 3,
                _ => 0,
            };
            x |= (u32::from(d.saturate) << 3) | (dt << 4) | (shift << 30);
        }
    }
    x
}
