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
//! size and the whole padded to its largest field, as C lays a struct out. Its fields may also
//! be buffer addresses (`u64:@0`, `u64:@NAME+64`) and tensor maps (`tmap(SPEC)`), placed at
//! explicit offsets (`OFF=FIELD`); `bytes[N]:INIT{OFF=FIELD,…}` is N raw bytes (a file a host
//! program wrote, say) with addresses and maps written over them; `u64:@REF` alone passes an
//! address (see [`structs`]).

use std::fmt;
use std::path::{Path, PathBuf};

mod elem;
pub mod structs;

pub use elem::{article, ElemType};
pub use structs::{BufRef, ByValue};

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

/// A buffer's initial contents. Zero and filled buffers are not materialised in host memory:
/// a 16 GiB `:fill=` buffer costs its device memory only.
#[derive(Clone, Debug, PartialEq)]
pub enum Contents {
    /// This many zero bytes (nothing to write).
    Zero(usize),
    /// `len` bytes repeating `pattern` (one element's bytes).
    Fill {
        /// One element.
        pattern: Vec<u8>,
        /// Bytes in all.
        len: usize,
    },
    /// These bytes.
    Bytes(Vec<u8>),
}

/// The most bytes a filled buffer is written in at once.
const FILL_CHUNK: usize = 1 << 20;

impl Contents {
    /// The size in bytes.
    pub fn len(&self) -> usize {
        match self {
            Contents::Zero(n) | Contents::Fill { len: n, .. } => *n,
            Contents::Bytes(b) => b.len(),
        }
    }

    /// Writes the contents through `write(offset, bytes)` (nothing for zero contents, pieces
    /// of at most 1 MiB for filled ones); stops at the first `false`.
    pub fn write_with(&self, mut write: impl FnMut(u64, &[u8]) -> bool) -> bool {
        match self {
            Contents::Zero(_) => true,
            Contents::Bytes(b) => write(0, b),
            Contents::Fill { pattern, len } => {
                if pattern.is_empty() {
                    return true;
                }
                let chunk: Vec<u8> = pattern
                    .iter()
                    .copied()
                    .cycle()
                    .take(FILL_CHUNK.div_ceil(pattern.len()) * pattern.len())
                    .collect();
                let mut at = 0;
                while at < *len {
                    let n = (len - at).min(chunk.len());
                    if !write(at as u64, &chunk[..n]) {
                        return false;
                    }
                    at += n;
                }
                true
            }
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
    /// Bytes passed by value that hold buffer addresses or tensor maps ([`structs`]),
    /// finished once buffers are placed.
    ByValue(Box<ByValue>),
}

impl fmt::Display for ArgSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgSpec::Scalar { ty, .. } => write!(f, "{} scalar", ty.name()),
            ArgSpec::Buffer { ty, count, .. } => write!(f, "{}[{count}] buffer", ty.name()),
            ArgSpec::TensorMap(_) => write!(f, "tensor map"),
            ArgSpec::ByValue(b) => write!(f, "{}-byte struct", b.len),
        }
    }
}

/// Parses one `--arg` specification.
///
/// # Errors
/// A message naming what is wrong with the text.
pub fn parse(spec: &str) -> Result<ArgSpec, String> {
    if let Some(body) = spec.trim().strip_prefix('{') {
        let body = body
            .strip_suffix('}')
            .ok_or_else(|| format!("`{spec}`: a struct is written {{SCALAR,SCALAR,...}}"))?;
        return structs::parse_struct(spec, body);
    }
    if let Some(rest) = spec.trim().strip_prefix("bytes[") {
        return structs::parse_bytes(spec, &format!("[{rest}"));
    }
    if let Some(a) = structs::parse_address(spec) {
        return a;
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
            ArgSpec::ByValue(b) => ArgSpec::ByValue(Box::new(b.relative_to(dir))),
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
            ArgSpec::Buffer {
                ty,
                count,
                init: Init::Fill(v),
            } => Ok(Contents::Fill {
                pattern: v.clone(),
                len: ty.size() * count,
            }),
            _ => self.buffer_bytes().map(Contents::Bytes),
        }
    }

    /// The size in bytes of a buffer spec (`None` for other specs).
    pub fn buffer_len(&self) -> Option<usize> {
        match self {
            ArgSpec::Buffer { ty, count, .. } => Some(ty.size() * count),
            _ => None,
        }
    }

    /// The initial bytes of a buffer (reading its file if needed), in host memory.
    ///
    /// # Errors
    /// An unreadable file or one of the wrong size, or more bytes than the host gives.
    pub fn buffer_bytes(&self) -> Result<Vec<u8>, String> {
        let ArgSpec::Buffer { ty, count, init } = self else {
            return Err("not a buffer".into());
        };
        let len = ty.size() * count;
        let room = |len: usize| -> Result<Vec<u8>, String> {
            let mut v = Vec::new();
            v.try_reserve_exact(len).map_err(|_| {
                format!(
                    "{}[{count}] needs {len} bytes of host memory, which the host refused",
                    ty.name()
                )
            })?;
            Ok(v)
        };
        match init {
            Init::Zero => {
                let mut v = room(len)?;
                v.resize(len, 0);
                Ok(v)
            }
            Init::Fill(p) => {
                let mut v = room(len)?;
                v.extend(p.iter().copied().cycle().take(len));
                Ok(v)
            }
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
