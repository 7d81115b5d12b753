//! Kernel argument specifications of `ptxemu run --arg SPEC`.
//!
//! A scalar is `TYPE:VALUE` (`u32:7`, `s32:-3`, `f32:1.5`, `f64:-0.25`, `b64:0xff`). A buffer
//! is `TYPE[N]:INIT`, allocated in global memory (aligned to 256 bytes as `cudaMalloc` does);
//! the parameter receives its 64-bit address. `INIT` is `zero`, `fill=V`, `file=PATH` (raw
//! little-endian, exactly N elements) or an inline list `[v0,v1,…]` of exactly N values.
//! Floats accept decimal, `inf`, `-inf`, `nan`, and raw bits written PTX-style (`0f3F800000`,
//! `0d3FF0000000000000`); `f16` and `bf16` take the same decimals (rounded once, to nearest
//! even), and raw bits as PTX writes a 16-bit float, `0x3C00`. A struct passed by value (a `.param .align A .b8 name[N]` parameter,
//! as nvcc declares one) is `{SCALAR,SCALAR,…}`: each field at the next offset aligned to its
//! size and the whole padded to its largest field, as C lays a struct out.

use std::fmt;
use std::path::{Path, PathBuf};

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
    fn parse(s: &str) -> Option<ElemType> {
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

/// A decoded element value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// Unsigned or bits.
    U(u64),
    /// Signed.
    I(i64),
    /// Float.
    F(f64),
}

/// How a buffer is initialised.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    /// All zero bytes.
    Zero,
    /// Every element equal to this encoded value.
    Fill(Vec<u8>),
    /// Bytes from a file.
    File(PathBuf),
    /// Listed elements (already encoded).
    List(Vec<u8>),
}

/// A buffer's initial contents.
#[derive(Clone, Debug, PartialEq)]
pub enum Contents {
    /// This many zero bytes (nothing to write).
    Zero(usize),
    /// These bytes.
    Bytes(Vec<u8>),
}

impl Contents {
    /// The size in bytes.
    pub fn len(&self) -> usize {
        match self {
            Contents::Zero(n) => *n,
            Contents::Bytes(b) => b.len(),
        }
    }

    /// The bytes to write, if not all zero.
    pub fn bytes(&self) -> Option<&[u8]> {
        match self {
            Contents::Zero(_) => None,
            Contents::Bytes(b) => Some(b),
        }
    }
}

/// One `--arg`.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgSpec {
    /// A scalar, encoded.
    Scalar {
        /// Its type.
        ty: ElemType,
        /// Its bytes.
        bytes: Vec<u8>,
    },
    /// A buffer of `count` elements.
    Buffer {
        /// Element type.
        ty: ElemType,
        /// Number of elements.
        count: usize,
        /// Initial contents.
        init: Init,
    },
    /// A tensor map (`tmap:...`, see `crate::tmap_arg`): 128 bytes made from a buffer
    /// argument's address once buffers are placed.
    TensorMap(Box<crate::tmap_arg::TmapSpec>),
}

impl fmt::Display for ArgSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgSpec::Scalar { ty, .. } => write!(f, "{} scalar", ty.name()),
            ArgSpec::Buffer { ty, count, .. } => write!(f, "{}[{count}] buffer", ty.name()),
            ArgSpec::TensorMap(_) => write!(f, "tensor map"),
        }
    }
}

/// Parses one `--arg` specification.
///
/// # Errors
/// A message naming what is wrong with the text.
pub fn parse(spec: &str) -> Result<ArgSpec, String> {
    if let Some(body) = spec.trim().strip_prefix('{') {
        return parse_struct(spec, body);
    }
    if let Some(body) = spec.trim().strip_prefix("tmap:") {
        return crate::tmap_arg::parse(body)
            .map(|t| ArgSpec::TensorMap(Box::new(t)))
            .map_err(|e| format!("`{spec}`: {e}"));
    }
    let (head, rest) = spec
        .split_once(':')
        .ok_or_else(|| format!("`{spec}`: expected TYPE:VALUE or TYPE[N]:INIT"))?;
    if let Some((ty, count)) = head.split_once('[') {
        let ty = ElemType::parse(ty).ok_or_else(|| format!("`{spec}`: unknown type `{ty}`"))?;
        let count = count
            .strip_suffix(']')
            .and_then(|c| c.trim().parse::<usize>().ok())
            .ok_or_else(|| format!("`{spec}`: bad element count in `{head}`"))?;
        let limit = emu::exec::memory::MAX_ALLOCATION;
        if ty
            .size()
            .checked_mul(count)
            .is_none_or(|n| n as u64 > limit)
        {
            return Err(format!(
                "`{spec}`: the buffer is larger than ptxemu's limit of {limit} bytes for one allocation"
            ));
        }
        let init = if rest == "zero" {
            Init::Zero
        } else if let Some(v) = rest.strip_prefix("fill=") {
            Init::Fill(ty.encode(v).map_err(|e| format!("`{spec}`: {e}"))?)
        } else if let Some(p) = rest.strip_prefix("file=") {
            Init::File(PathBuf::from(p))
        } else if let Some(list) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            let mut bytes = Vec::new();
            let items: Vec<&str> = if list.trim().is_empty() {
                Vec::new()
            } else {
                list.split(',').collect()
            };
            if items.len() != count {
                return Err(format!(
                    "`{spec}`: the list has {} value(s) but the buffer has {count}",
                    items.len()
                ));
            }
            for it in items {
                bytes.extend(ty.encode(it).map_err(|e| format!("`{spec}`: {e}"))?);
            }
            Init::List(bytes)
        } else {
            return Err(format!(
                "`{spec}`: a buffer is initialised with zero, fill=V, file=PATH or [v0,v1,...]"
            ));
        };
        return Ok(ArgSpec::Buffer { ty, count, init });
    }
    let ty = ElemType::parse(head).ok_or_else(|| format!("`{spec}`: unknown type `{head}`"))?;
    let bytes = ty.encode(rest).map_err(|e| format!("`{spec}`: {e}"))?;
    Ok(ArgSpec::Scalar { ty, bytes })
}

/// A struct by value, `{SCALAR,…}` (`body` is what follows the `{`), laid out as C lays it
/// out; its bytes are a scalar of type `b8` as long as the struct.
fn parse_struct(spec: &str, body: &str) -> Result<ArgSpec, String> {
    let body = body
        .strip_suffix('}')
        .ok_or_else(|| format!("`{spec}`: a struct is written {{SCALAR,SCALAR,...}}"))?;
    let mut bytes = Vec::new();
    let mut align = 1;
    for field in body.split(',') {
        let field = field.trim();
        if field.starts_with('{') || field.contains('[') {
            return Err(format!(
                "`{spec}`: a struct's fields are scalars (TYPE:VALUE), not `{field}`"
            ));
        }
        let ArgSpec::Scalar { ty, bytes: b } =
            parse(field).map_err(|e| format!("`{spec}`: {e}"))?
        else {
            unreachable!("a field without `[` parses as a scalar or fails");
        };
        align = align.max(ty.size());
        bytes.resize(bytes.len().div_ceil(ty.size()) * ty.size(), 0);
        bytes.extend(b);
    }
    bytes.resize(bytes.len().div_ceil(align) * align, 0);
    Ok(ArgSpec::Scalar {
        ty: ElemType::B8,
        bytes,
    })
}

impl ArgSpec {
    /// The same spec with a relative `file=` path taken from `dir`.
    pub fn relative_to(self, dir: &Path) -> ArgSpec {
        match self {
            ArgSpec::Buffer {
                ty,
                count,
                init: Init::File(p),
            } if p.is_relative() => ArgSpec::Buffer {
                ty,
                count,
                init: Init::File(dir.join(p)),
            },
            ArgSpec::TensorMap(mut t) => {
                t.data = t.data.map(|d| Box::new(d.relative_to(dir)));
                ArgSpec::TensorMap(t)
            }
            other => other,
        }
    }

    /// The initial contents of a buffer: zero buffers are not materialised (fresh device
    /// memory is zero, and the host commits its pages only when a kernel touches them).
    ///
    /// # Errors
    /// As [`ArgSpec::buffer_bytes`].
    pub fn buffer_contents(&self) -> Result<Contents, String> {
        match self {
            ArgSpec::Buffer {
                ty,
                count,
                init: Init::Zero,
            } => Ok(Contents::Zero(ty.size() * count)),
            _ => self.buffer_bytes().map(Contents::Bytes),
        }
    }

    /// The initial bytes of a buffer (reading its file if needed).
    ///
    /// # Errors
    /// An unreadable file or one of the wrong size.
    pub fn buffer_bytes(&self) -> Result<Vec<u8>, String> {
        let ArgSpec::Buffer { ty, count, init } = self else {
            return Err("not a buffer".into());
        };
        let len = ty.size() * count;
        match init {
            Init::Zero => Ok(vec![0; len]),
            Init::Fill(v) => Ok(v.iter().copied().cycle().take(len).collect()),
            Init::List(b) => Ok(b.clone()),
            Init::File(p) => {
                // The size is checked before anything is read: an 8 GiB file, or /dev/zero, given
                // for a 16-byte buffer is refused at once.
                crate::bounded::read_exactly(p, len as u64)
                    .map_err(|e| format!("{e} ({}[{count}] needs exactly {len})", ty.name()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars() {
        assert_eq!(
            parse("u32:7").unwrap(),
            ArgSpec::Scalar {
                ty: ElemType::U32,
                bytes: vec![7, 0, 0, 0]
            }
        );
        assert_eq!(
            parse("s32:-3").unwrap(),
            ArgSpec::Scalar {
                ty: ElemType::S32,
                bytes: vec![0xfd, 0xff, 0xff, 0xff]
            }
        );
        assert_eq!(
            parse("f32:1.5").unwrap(),
            ArgSpec::Scalar {
                ty: ElemType::F32,
                bytes: 1.5f32.to_le_bytes().to_vec()
            }
        );
        assert_eq!(
            parse("f64:-0.25").unwrap(),
            ArgSpec::Scalar {
                ty: ElemType::F64,
                bytes: (-0.25f64).to_le_bytes().to_vec()
            }
        );
        assert_eq!(
            parse("b64:0xff").unwrap(),
            ArgSpec::Scalar {
                ty: ElemType::B64,
                bytes: vec![0xff, 0, 0, 0, 0, 0, 0, 0]
            }
        );
        assert_eq!(
            parse("f32:0f3F800000").unwrap(),
            ArgSpec::Scalar {
                ty: ElemType::F32,
                bytes: 1.0f32.to_le_bytes().to_vec()
            }
        );
        assert_eq!(
            parse("s8:-128").unwrap(),
            ArgSpec::Scalar {
                ty: ElemType::S8,
                bytes: vec![0x80]
            }
        );
    }

    #[test]
    fn structs_are_laid_out_as_c_lays_them_out() {
        // Rodinia lavaMD's dim_str: four ints, then five longs.
        let ArgSpec::Scalar { ty, bytes } =
            parse("{s32:3,s32:0,s32:0,s32:2,s64:8,s64:5248,s64:800,s64:25600,s64:6400}").unwrap()
        else {
            panic!("a struct is passed by value");
        };
        assert_eq!(ty, ElemType::B8);
        assert_eq!(bytes.len(), 56);
        assert_eq!(bytes[12..16], 2i32.to_le_bytes());
        assert_eq!(bytes[16..24], 8i64.to_le_bytes());
        assert_eq!(bytes[48..56], 6400i64.to_le_bytes());
        // A field is aligned to its size and the whole to its largest field:
        // { char; double; short } is 1 + 7 + 8 + 2 + 6 = 24 bytes.
        let ArgSpec::Scalar { bytes, .. } = parse("{u8:1, f64:0.5, s16:-1}").unwrap() else {
            panic!("a struct is passed by value");
        };
        assert_eq!(bytes.len(), 24);
        assert_eq!(bytes[8..16], 0.5f64.to_le_bytes());
        assert_eq!(bytes[16..18], (-1i16).to_le_bytes());
        assert!(parse("{s32:1").unwrap_err().contains("SCALAR,SCALAR"));
        assert!(parse("{s32:1,f32[2]:zero}")
            .unwrap_err()
            .contains("scalars"));
        assert!(parse("{s32:1,{s32:2}}").unwrap_err().contains("scalars"));
        assert!(parse("{s32:x}").unwrap_err().contains("not an s32 value"));
        assert!(parse("{}").unwrap_err().contains("expected"));
    }

    #[test]
    fn scalar_errors_name_the_problem() {
        assert!(parse("u8:256").unwrap_err().contains("does not fit"));
        assert!(parse("u32:-1").unwrap_err().contains("unsigned"));
        assert!(parse("s8:128").unwrap_err().contains("does not fit"));
        assert!(parse("q32:1").unwrap_err().contains("unknown type"));
        assert!(parse("u32").unwrap_err().contains("expected"));
        assert!(parse("f32:abc").unwrap_err().contains("not an f32 value"));
        // Issue 23: these silently became infinity.
        for s in ["f32:1e99999", "f32:-1e39", "f64:1e99999"] {
            assert!(parse(s).unwrap_err().contains("out of the f"), "{s}");
        }
        assert!(parse("f32:3.4e38").is_ok());
        assert_eq!(parse("f32:-inf").unwrap(), parse("f32:-infinity").unwrap());
        assert!(parse("s32:x").unwrap_err().contains("not an s32 value"));
        assert!(parse("u32:x").unwrap_err().contains("not a u32 value"));
    }

    #[test]
    fn buffers() {
        let b = parse("u16[3]:fill=258").unwrap();
        assert_eq!(b.buffer_bytes().unwrap(), vec![2, 1, 2, 1, 2, 1]);
        let z = parse("f64[2]:zero").unwrap();
        assert_eq!(z.buffer_bytes().unwrap(), vec![0; 16]);
        let l = parse("s32[2]:[1,-1]").unwrap();
        assert_eq!(
            l.buffer_bytes().unwrap(),
            vec![1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]
        );
        assert!(parse("s32[3]:[1,2]")
            .unwrap_err()
            .contains("has 2 value(s)"));
        assert!(parse("s32[x]:zero")
            .unwrap_err()
            .contains("bad element count"));
        for huge in ["u32[1000000000000]:zero", "f64[18446744073709551615]:zero"] {
            let e = parse(huge).unwrap_err();
            assert!(e.contains("larger than ptxemu's limit"), "{e}");
        }
        assert!(
            parse("u8[17179869184]:zero").is_ok(),
            "exactly the limit is allowed"
        );
        assert!(parse("u32[4]:junk")
            .unwrap_err()
            .contains("initialised with"));
    }

    #[test]
    fn file_buffers_must_have_the_exact_size() {
        let dir = std::env::temp_dir().join(format!("ptxemu-argspec-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("in.bin");
        std::fs::write(&p, [1u8, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        let ok = parse(&format!("u32[2]:file={}", p.display())).unwrap();
        assert_eq!(ok.buffer_bytes().unwrap().len(), 8);
        let bad = parse(&format!("u32[3]:file={}", p.display())).unwrap();
        assert!(bad.buffer_bytes().unwrap_err().contains("needs exactly 12"));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn decode_for_display() {
        assert_eq!(ElemType::S16.decode(&[0xff, 0xff]), Value::I(-1));
        assert_eq!(ElemType::F32.decode(&2.5f32.to_le_bytes()), Value::F(2.5));
        assert_eq!(
            ElemType::U64.decode(&u64::MAX.to_le_bytes()),
            Value::U(u64::MAX)
        );
    }
}
