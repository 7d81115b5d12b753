//! The element and scalar types of `--arg` specs: names, sizes, and how a value of each is
//! read and written.

use super::Value;
use emu::ir::Type;

/// An element or scalar type of an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemType {
    /// `u8`
    U8,
    /// `s8`
    S8,
    /// `u16`
    U16,
    /// `s16`
    S16,
    /// `u32`
    U32,
    /// `s32`
    S32,
    /// `u64`
    U64,
    /// `s64`
    S64,
    /// `b8`
    B8,
    /// `b16`
    B16,
    /// `b32`
    B32,
    /// `b64`
    B64,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `f16` (IEEE binary16)
    F16,
    /// `bf16` (bfloat16)
    BF16,
}

impl ElemType {
    pub(super) fn parse(s: &str) -> Option<ElemType> {
        Some(match s {
            "u8" => ElemType::U8,
            "s8" => ElemType::S8,
            "u16" => ElemType::U16,
            "s16" => ElemType::S16,
            "u32" => ElemType::U32,
            "s32" => ElemType::S32,
            "u64" => ElemType::U64,
            "s64" => ElemType::S64,
            "b8" => ElemType::B8,
            "b16" => ElemType::B16,
            "b32" => ElemType::B32,
            "b64" => ElemType::B64,
            "f32" => ElemType::F32,
            "f64" => ElemType::F64,
            "f16" => ElemType::F16,
            "bf16" => ElemType::BF16,
            _ => return None,
        })
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            ElemType::U8 | ElemType::S8 | ElemType::B8 => 1,
            ElemType::U16 | ElemType::S16 | ElemType::B16 | ElemType::F16 | ElemType::BF16 => 2,
            ElemType::U32 | ElemType::S32 | ElemType::B32 | ElemType::F32 => 4,
            ElemType::U64 | ElemType::S64 | ElemType::B64 | ElemType::F64 => 8,
        }
    }

    /// The name as written.
    pub fn name(self) -> &'static str {
        match self {
            ElemType::U8 => "u8",
            ElemType::S8 => "s8",
            ElemType::U16 => "u16",
            ElemType::S16 => "s16",
            ElemType::U32 => "u32",
            ElemType::S32 => "s32",
            ElemType::U64 => "u64",
            ElemType::S64 => "s64",
            ElemType::B8 => "b8",
            ElemType::B16 => "b16",
            ElemType::B32 => "b32",
            ElemType::B64 => "b64",
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
            ElemType::F16 => "f16",
            ElemType::BF16 => "bf16",
        }
    }

    fn is_signed(self) -> bool {
        matches!(
            self,
            ElemType::S8 | ElemType::S16 | ElemType::S32 | ElemType::S64
        )
    }

    /// Whether this is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElemType::F32 | ElemType::F64 | ElemType::F16 | ElemType::BF16
        )
    }

    fn not_a_value(self, text: &str) -> String {
        format!(
            "`{text}` is not {} {} value",
            article(self.name()),
            self.name()
        )
    }

    /// Encodes one value written as text.
    ///
    /// # Errors
    /// Text that is not a number of this type, or out of its range.
    pub fn encode(self, text: &str) -> Result<Vec<u8>, String> {
        let t = text.trim();
        let n = self.size();
        if matches!(self, ElemType::F16 | ElemType::BF16) {
            return crate::argfloat16::encode(self, t).map(|b| b.to_le_bytes().to_vec());
        }
        if self.is_float() {
            let bits: u64 = if let Some(h) = t.strip_prefix("0f").or_else(|| t.strip_prefix("0F")) {
                u64::from(
                    u32::from_str_radix(h, 16).map_err(|_| format!("bad f32 bit pattern `{t}`"))?,
                )
            } else if let Some(h) = t.strip_prefix("0d").or_else(|| t.strip_prefix("0D")) {
                u64::from_str_radix(h, 16).map_err(|_| format!("bad f64 bit pattern `{t}`"))?
            } else {
                let v: f64 = match t.to_ascii_lowercase().as_str() {
                    "inf" | "+inf" | "infinity" => f64::INFINITY,
                    "-inf" | "-infinity" => f64::NEG_INFINITY,
                    "nan" => f64::NAN,
                    _ => t.parse().map_err(|_| self.not_a_value(t))?,
                };
                // `1e99999` is a number too large for the type, not infinity.
                let rounded_inf = if self == ElemType::F32 {
                    (v as f32).is_infinite()
                } else {
                    v.is_infinite()
                };
                if rounded_inf && !t.to_ascii_lowercase().contains("inf") {
                    return Err(format!(
                        "`{t}` is out of the {} range (write inf for infinity)",
                        self.name()
                    ));
                }
                if self == ElemType::F32 {
                    u64::from((v as f32).to_bits())
                } else {
                    v.to_bits()
                }
            };
            return Ok(bits.to_le_bytes()[..n].to_vec());
        }
        let (neg, digits) = match t.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        let mag: u128 = if let Some(h) = digits
            .strip_prefix("0x")
            .or_else(|| digits.strip_prefix("0X"))
        {
            u128::from_str_radix(h, 16)
        } else if let Some(b) = digits.strip_prefix("0b") {
            u128::from_str_radix(b, 2)
        } else {
            digits.parse()
        }
        .map_err(|_| self.not_a_value(t))?;
        let bits = (n * 8) as u32;
        let value: i128 = if neg { -(mag as i128) } else { mag as i128 };
        let (min, max): (i128, i128) = if self.is_signed() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else if neg {
            return Err(format!("`{t}` is negative but {} is unsigned", self.name()));
        } else {
            (0, (1i128 << bits) - 1)
        };
        if value < min || value > max {
            return Err(format!("`{t}` does not fit in {}", self.name()));
        }
        Ok((value as u128).to_le_bytes()[..n].to_vec())
    }

    /// Decodes one element for display (JSON).
    pub fn decode(self, b: &[u8]) -> Value {
        let mut buf = [0u8; 8];
        buf[..b.len().min(8)].copy_from_slice(&b[..b.len().min(8)]);
        let u = u64::from_le_bytes(buf);
        match self {
            ElemType::U8
            | ElemType::U16
            | ElemType::U32
            | ElemType::U64
            | ElemType::B8
            | ElemType::B16 => Value::U(u),
            ElemType::B32 | ElemType::B64 => Value::U(u),
            ElemType::S8 => Value::I(i64::from(u as u8 as i8)),
            ElemType::S16 => Value::I(i64::from(u as u16 as i16)),
            ElemType::S32 => Value::I(i64::from(u as u32 as i32)),
            ElemType::S64 => Value::I(u as i64),
            ElemType::F32 => Value::F(f64::from(f32::from_bits(u as u32))),
            ElemType::F64 => Value::F(f64::from_bits(u)),
            ElemType::F16 => Value::F(emu::semantics::convert::to_f64(u, Type::F16, false)),
            ElemType::BF16 => Value::F(emu::semantics::convert::to_f64(u, Type::BF16, false)),
        }
    }
}

/// The indefinite article for a type name as it is read aloud, letter by letter: "an s32",
/// "an f64", "an 8-bit", but "a u32", "a b16".
pub fn article(name: &str) -> &'static str {
    match name.trim_start_matches('.').chars().next() {
        Some('a' | 'e' | 'f' | 'h' | 'i' | 'l' | 'm' | 'n' | 'o' | 'r' | 's' | 'x' | '8') => "an",
        _ => "a",
    }
}
