//! PTX fundamental types, rounding modifiers and small qualifier enums shared by many
//! instruction families (PTX ISA "Fundamental Types", "Rounding Modifiers").

use std::fmt;

/// A PTX fundamental type, as written in an instruction's `.type` qualifier or a declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// `.pred`: a one-bit predicate.
    Pred,
    /// `.b8`
    B8,
    /// `.b16`
    B16,
    /// `.b32`
    B32,
    /// `.b64`
    B64,
    /// `.b128` (PTX 8.3)
    B128,
    /// `.u8`
    U8,
    /// `.u16`
    U16,
    /// `.u32`
    U32,
    /// `.u64`
    U64,
    /// `.s8`
    S8,
    /// `.s16`
    S16,
    /// `.s32`
    S32,
    /// `.s64`
    S64,
    /// `.f16`: IEEE binary16.
    F16,
    /// `.f16x2`: two packed binary16 values in 32 bits.
    F16x2,
    /// `.bf16`: bfloat16.
    BF16,
    /// `.bf16x2`: two packed bfloat16 values.
    BF16x2,
    /// `.tf32`: TensorFloat-32 held in a 32-bit register.
    TF32,
    /// `.f32`: IEEE binary32.
    F32,
    /// `.f64`: IEEE binary64.
    F64,
    /// `.e4m3x2`: two packed FP8 E4M3 values.
    E4M3x2,
    /// `.e5m2x2`: two packed FP8 E5M2 values.
    E5M2x2,
    /// `.f32x2`: two packed binary32 values in a 64-bit register (sm_100 arithmetic).
    F32x2,
}

/// The broad class of a [`Type`], which decides how values convert and compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeClass {
    /// `.pred`
    Pred,
    /// Untyped bits (`.bN`).
    Bits,
    /// Unsigned integers (`.uN`).
    Unsigned,
    /// Signed integers (`.sN`).
    Signed,
    /// Scalar floating point (`.f16 .bf16 .tf32 .f32 .f64`).
    Float,
    /// Packed floats (`.f16x2 .bf16x2 .e4m3x2 .e5m2x2 .f32x2`).
    PackedFloat,
}

impl Type {
    /// Every type, in declaration order.
    pub const ALL: [Type; 24] = [
        Type::Pred,
        Type::B8,
        Type::B16,
        Type::B32,
        Type::B64,
        Type::B128,
        Type::U8,
        Type::U16,
        Type::U32,
        Type::U64,
        Type::S8,
        Type::S16,
        Type::S32,
        Type::S64,
        Type::F16,
        Type::F16x2,
        Type::BF16,
        Type::BF16x2,
        Type::TF32,
        Type::F32,
        Type::F64,
        Type::E4M3x2,
        Type::E5M2x2,
        Type::F32x2,
    ];

    /// Width in bits (a predicate counts as 1).
    pub fn bits(self) -> u32 {
        match self {
            Type::Pred => 1,
            Type::B8 | Type::U8 | Type::S8 => 8,
            Type::B16 | Type::U16 | Type::S16 | Type::F16 | Type::BF16 => 16,
            Type::E4M3x2 | Type::E5M2x2 => 16,
            Type::B32 | Type::U32 | Type::S32 | Type::F32 | Type::TF32 => 32,
            Type::F16x2 | Type::BF16x2 => 32,
            Type::B64 | Type::U64 | Type::S64 | Type::F64 | Type::F32x2 => 64,
            Type::B128 => 128,
        }
    }

    /// Width in bytes when stored in memory (a predicate cannot be stored; it reports 1).
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    /// The class of the type.
    pub fn class(self) -> TypeClass {
        match self {
            Type::Pred => TypeClass::Pred,
            Type::B8 | Type::B16 | Type::B32 | Type::B64 | Type::B128 => TypeClass::Bits,
            Type::U8 | Type::U16 | Type::U32 | Type::U64 => TypeClass::Unsigned,
            Type::S8 | Type::S16 | Type::S32 | Type::S64 => TypeClass::Signed,
            Type::F16 | Type::BF16 | Type::TF32 | Type::F32 | Type::F64 => TypeClass::Float,
            Type::F16x2 | Type::BF16x2 | Type::E4M3x2 | Type::E5M2x2 | Type::F32x2 => {
                TypeClass::PackedFloat
            }
        }
    }

    /// Whether the type is a signed integer.
    pub fn is_signed(self) -> bool {
        self.class() == TypeClass::Signed
    }

    /// Whether the type is an integer or bit type (signed, unsigned or untyped bits).
    pub fn is_integer(self) -> bool {
        matches!(
            self.class(),
            TypeClass::Bits | TypeClass::Unsigned | TypeClass::Signed
        )
    }

    /// Whether the type is a scalar or packed floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self.class(), TypeClass::Float | TypeClass::PackedFloat)
    }

    /// The indefinite article for the type's name read aloud letter by letter, for messages:
    /// "an .s32 register", "an .f64 operand", but "a .u32 register", "a .b16 register".
    pub fn article(self) -> &'static str {
        match self.name().as_bytes().first() {
            Some(b'e' | b'f' | b's' | b'x') => "an",
            _ => "a",
        }
    }

    /// The bits' article: "an 8-bit register", "a 16-bit register".
    pub fn bits_article(bits: u32) -> &'static str {
        if matches!(bits, 8 | 11 | 18 | 80) || (800..900).contains(&bits) {
            "an"
        } else {
            "a"
        }
    }

    /// The qualifier as written, without the leading dot.
    pub fn name(self) -> &'static str {
        match self {
            Type::Pred => "pred",
            Type::B8 => "b8",
            Type::B16 => "b16",
            Type::B32 => "b32",
            Type::B64 => "b64",
            Type::B128 => "b128",
            Type::U8 => "u8",
            Type::U16 => "u16",
            Type::U32 => "u32",
            Type::U64 => "u64",
            Type::S8 => "s8",
            Type::S16 => "s16",
            Type::S32 => "s32",
            Type::S64 => "s64",
            Type::F16 => "f16",
            Type::F16x2 => "f16x2",
            Type::BF16 => "bf16",
            Type::BF16x2 => "bf16x2",
            Type::TF32 => "tf32",
            Type::F32 => "f32",
            Type::F64 => "f64",
            Type::E4M3x2 => "e4m3x2",
            Type::E5M2x2 => "e5m2x2",
            Type::F32x2 => "f32x2",
        }
    }

    /// Whether the type packs two values of a narrower float type (`.f16x2`, `.bf16x2`,
    /// `.e4m3x2`, `.e5m2x2`, `.f32x2`).
    pub fn is_packed_pair(self) -> bool {
        self.class() == TypeClass::PackedFloat
    }

    /// Parses a type qualifier written without its leading dot.
    pub fn from_name(s: &str) -> Option<Type> {
        Type::ALL.into_iter().find(|t| t.name() == s)
    }

    /// The unsigned integer type of the same width (bit and signed types map to it; others
    /// are returned unchanged).
    pub fn unsigned_of_width(self) -> Type {
        match self.bits() {
            8 => Type::U8,
            16 => Type::U16,
            32 => Type::U32,
            64 => Type::U64,
            _ => self,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A floating-point rounding modifier (`.rn .rz .rm .rp`, and `.rna` for `cvt.rna.tf32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatRounding {
    /// Round to nearest, ties to even.
    Rn,
    /// Round towards zero.
    Rz,
    /// Round towards negative infinity.
    Rm,
    /// Round towards positive infinity.
    Rp,
    /// Round to nearest, ties away from zero (tf32 and fp8 conversions).
    Rna,
    /// Stochastic rounding (`.rs`, sm_100a conversions).
    Rs,
}

impl FloatRounding {
    /// The qualifier as written, without the leading dot.
    pub fn name(self) -> &'static str {
        match self {
            FloatRounding::Rn => "rn",
            FloatRounding::Rz => "rz",
            FloatRounding::Rm => "rm",
            FloatRounding::Rp => "rp",
            FloatRounding::Rna => "rna",
            FloatRounding::Rs => "rs",
        }
    }
}

/// An integer rounding modifier of `cvt` and `cvt`-like instructions
/// (`.rni .rzi .rmi .rpi`): round a float to an integral value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntRounding {
    /// Nearest integer, ties to even.
    Rni,
    /// Towards zero.
    Rzi,
    /// Towards negative infinity.
    Rmi,
    /// Towards positive infinity.
    Rpi,
}

impl IntRounding {
    /// The qualifier as written, without the leading dot.
    pub fn name(self) -> &'static str {
        match self {
            IntRounding::Rni => "rni",
            IntRounding::Rzi => "rzi",
            IntRounding::Rmi => "rmi",
            IntRounding::Rpi => "rpi",
        }
    }
}

/// The rounding of a conversion: to a float value or to an integral value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CvtRounding {
    /// `.rn .rz .rm .rp .rna .rs`
    Float(FloatRounding),
    /// `.rni .rzi .rmi .rpi`
    Int(IntRounding),
}

/// A vector width qualifier (`.v2 .v4 .v8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VecWidth {
    /// `.v2`
    V2,
    /// `.v4`
    V4,
    /// `.v8` (PTX 8.8, 32-bit types on global memory)
    V8,
}

impl VecWidth {
    /// The number of elements.
    #[allow(clippy::len_without_is_empty)] // a vector width is never empty
    pub fn len(self) -> usize {
        match self {
            VecWidth::V2 => 2,
            VecWidth::V4 => 4,
            VecWidth::V8 => 8,
        }
    }

    /// The qualifier as written, without the leading dot.
    pub fn name(self) -> &'static str {
        match self {
            VecWidth::V2 => "v2",
            VecWidth::V4 => "v4",
            VecWidth::V8 => "v8",
        }
    }
}

/// A three-dimensional component selector (`.x .y .z`) of special registers and launch shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// `.x`
    X,
    /// `.y`
    Y,
    /// `.z`
    Z,
}

impl Dim {
    /// All three components in order.
    pub const ALL: [Dim; 3] = [Dim::X, Dim::Y, Dim::Z];

    /// The component as written, without the leading dot.
    pub fn name(self) -> &'static str {
        match self {
            Dim::X => "x",
            Dim::Y => "y",
            Dim::Z => "z",
        }
    }

    /// The index of the component (x = 0).
    pub fn index(self) -> usize {
        match self {
            Dim::X => 0,
            Dim::Y => 1,
            Dim::Z => 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_round_trip() {
        for t in Type::ALL {
            assert_eq!(Type::from_name(t.name()), Some(t));
        }
        assert_eq!(Type::from_name("u128"), None);
    }

    #[test]
    fn widths() {
        assert_eq!(Type::B128.bytes(), 16);
        assert_eq!(Type::F16x2.bits(), 32);
        assert_eq!(Type::S8.unsigned_of_width(), Type::U8);
        assert!(Type::S64.is_signed() && Type::S64.is_integer());
        assert!(!Type::B32.is_signed() && Type::B32.is_integer());
        assert!(Type::BF16x2.is_float());
    }
}
