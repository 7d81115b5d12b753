//! Arguments passed by value whose bytes hold buffer addresses and tensor maps: the `Params`
//! structs of CUTLASS kernels, C structs with pointer fields, and `u64:@A` pointers.
//!
//! Forms (each usable as an `--arg` and as a plan argument):
//!
//! - `{FIELD,FIELD,…}`: a struct laid out as C lays it out; a FIELD is a scalar `TYPE:VALUE`,
//!   an address `u64:@REF` / `u64:@REF+BYTES` (also `b64`/`s64`), or a tensor map
//!   `tmap(SPEC)` (128 bytes, aligned to 64; SPEC as `--arg tmap:` takes it). A field may be
//!   placed at an explicit byte offset, `OFF=FIELD`, at or after the end of the fields before it.
//! - `bytes[N]:INIT` or `bytes[N]:INIT{OFF=FIELD,…}`: N raw bytes (`INIT` as a buffer's: `zero`,
//!   `fill=V`, `file=PATH`, `[b0,…]`), with the listed fields written over them at their offsets
//!   (address relocations and tensor maps into bytes a host program wrote).
//! - `u64:@REF[+BYTES]` alone: an 8-byte parameter holding an address.
//!
//! `REF` names a buffer: a number is the index of a buffer `--arg` (or a buffer argument of the
//! same plan launch), a name a `--buffer NAME=SPEC` (or a plan buffer). An address field is
//! aligned to 8 and a tensor map to 64 within the struct; fields may not overlap; every patch
//! lies inside the N bytes. The bytes are complete once the buffers are placed
//! ([`ByValue::bytes`]).

use std::fmt;
use std::path::Path;

use super::{parse as parse_spec, ArgSpec, ElemType};
use crate::tmap_arg::TmapSpec;

/// Finds a referenced buffer's (address, length in bytes), or says why it cannot.
pub type ResolveBuffer<'a> = dyn Fn(&BufRef) -> Result<(u64, usize), String> + 'a;

/// A buffer an address or a tensor map refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BufRef {
    /// The buffer argument at this index.
    Index(usize),
    /// The named buffer (`--buffer NAME=SPEC`, or a plan buffer).
    Name(String),
}

impl BufRef {
    /// Parses `N` or `NAME` (letters, digits and `_`, not starting with a digit).
    ///
    /// # Errors
    /// Neither a number nor a name.
    pub fn parse(s: &str) -> Result<BufRef, String> {
        let s = s.trim();
        if let Ok(n) = s.parse::<usize>() {
            return Ok(BufRef::Index(n));
        }
        let name_ok = s
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if name_ok {
            Ok(BufRef::Name(s.to_string()))
        } else {
            Err(format!(
                "`{s}` names no buffer: write an argument index or a buffer name"
            ))
        }
    }
}

impl fmt::Display for BufRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BufRef::Index(n) => write!(f, "buffer argument {n}"),
            BufRef::Name(n) => write!(f, "buffer `{n}`"),
        }
    }
}

/// What is written at an offset of a by-value argument once buffers are placed.
#[derive(Clone, Debug, PartialEq)]
pub enum Patch {
    /// A buffer's address plus a byte offset (8 bytes).
    Address {
        /// The buffer.
        target: BufRef,
        /// Bytes past its start.
        add: u64,
    },
    /// A tensor map (128 bytes) over a buffer.
    TensorMap(Box<TmapSpec>),
}

impl Patch {
    fn size(&self) -> usize {
        match self {
            Patch::Address { .. } => 8,
            Patch::TensorMap(_) => emu::semantics::tma::TMAP_BYTES,
        }
    }

    fn align(&self) -> usize {
        match self {
            Patch::Address { .. } => 8,
            Patch::TensorMap(_) => 64,
        }
    }

    /// The buffers it refers to.
    pub fn buffers(&self) -> Vec<&BufRef> {
        match self {
            Patch::Address { target, .. } => vec![target],
            Patch::TensorMap(t) => t.buf.iter().collect(),
        }
    }
}

/// Where a by-value argument's bytes start from.
#[derive(Clone, Debug, PartialEq)]
pub enum Base {
    /// These bytes.
    Bytes(Vec<u8>),
    /// `bytes[N]:…`: a `u8[N]` buffer spec, read when the argument is made.
    Raw(Box<ArgSpec>),
}

/// An argument passed by value, with addresses and tensor maps written into it.
#[derive(Clone, Debug, PartialEq)]
pub struct ByValue {
    /// Its bytes before the patches.
    pub base: Base,
    /// Its size in bytes.
    pub len: usize,
    /// (offset, what) pairs, sorted by offset, not overlapping.
    pub patches: Vec<(usize, Patch)>,
}

/// Splits `s` at the commas outside parentheses, brackets and braces.
fn top_level_fields(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// A field: bytes now (a scalar), or a patch.
enum Field {
    Scalar(ElemType, Vec<u8>),
    Patch(Patch),
}

/// Parses `u64:@REF[+BYTES]` (also `b64`/`s64`), if `s` is one.
fn address(s: &str) -> Option<Result<Patch, String>> {
    let (ty, rest) = s.split_once(':')?;
    let rest = rest.trim().strip_prefix('@')?;
    if !matches!(ty.trim(), "u64" | "b64" | "s64") {
        return Some(Err(format!(
            "`{s}`: an address is 64 bits: write u64:@{rest}"
        )));
    }
    let (r, add) = match rest.split_once('+') {
        Some((r, a)) => match a.trim().parse::<u64>() {
            Ok(a) => (r, a),
            Err(_) => return Some(Err(format!("`{s}`: the offset after `+` is a byte count"))),
        },
        None => (rest, 0),
    };
    Some(BufRef::parse(r).map(|target| Patch::Address { target, add }))
}

fn field(s: &str) -> Result<Field, String> {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix("tmap(") {
        let inner = inner
            .strip_suffix(')')
            .ok_or_else(|| format!("`{s}`: a tensor map field is written tmap(SPEC)"))?;
        let t = crate::tmap_arg::parse(inner).map_err(|e| format!("`{s}`: {e}"))?;
        if t.data.is_some() {
            return Err(format!(
                "`{s}`: a tensor map inside a struct names its tensor with buf=REF (data= is for a tensor-map argument of its own)"
            ));
        }
        return Ok(Field::Patch(Patch::TensorMap(Box::new(t))));
    }
    if let Some(a) = address(s) {
        return a.map(Field::Patch);
    }
    if s.starts_with('{') || s.contains('[') {
        return Err(format!(
            "`{s}`: a struct's fields are scalars (TYPE:VALUE), addresses (u64:@REF) or tensor maps (tmap(SPEC))"
        ));
    }
    match parse_spec(s)? {
        ArgSpec::Scalar { ty, bytes } => Ok(Field::Scalar(ty, bytes)),
        other => Err(format!("`{s}`: {other} is not a struct field")),
    }
}

/// An optional `OFF=` before a field.
fn offset_of(s: &str) -> Result<(Option<usize>, &str), String> {
    let s = s.trim();
    match s.split_once('=') {
        Some((o, rest)) if !o.is_empty() && o.bytes().all(|b| b.is_ascii_digit()) => {
            let off = o
                .parse::<usize>()
                .map_err(|_| format!("`{s}`: offset {o} is too large"))?;
            Ok((Some(off), rest))
        }
        _ => Ok((None, s)),
    }
}

/// Parses the body of `{…}` (without the braces) as a C struct.
///
/// # Errors
/// A bad field, an explicit offset that overlaps an earlier field or breaks a field's
/// alignment.
pub fn parse_struct(spec: &str, body: &str) -> Result<ArgSpec, String> {
    if body.trim().is_empty() {
        return Err(format!("`{spec}`: expected at least one field in {{…}}"));
    }
    let mut bytes: Vec<u8> = Vec::new();
    let mut patches = Vec::new();
    let mut align = 1;
    for text in top_level_fields(body) {
        let (at, f) = offset_of(text)?;
        let f = field(f).map_err(|e| format!("`{spec}`: {e}"))?;
        let (size, a) = match &f {
            Field::Scalar(ty, _) => (ty.size(), ty.size()),
            Field::Patch(p) => (p.size(), p.align()),
        };
        align = align.max(a);
        let natural = bytes.len().div_ceil(a) * a;
        let off = match at {
            None => natural,
            Some(o) if o < bytes.len() => {
                return Err(format!(
                "`{spec}`: the field at offset {o} overlaps the fields before it (they end at {})",
                bytes.len()
            ))
            }
            Some(o) if o % a != 0 => {
                return Err(format!(
                    "`{spec}`: offset {o} is not a multiple of the field's alignment {a}"
                ))
            }
            Some(o) => o,
        };
        bytes.resize(off + size, 0);
        match f {
            Field::Scalar(_, b) => bytes[off..off + size].copy_from_slice(&b),
            Field::Patch(p) => patches.push((off, p)),
        }
    }
    bytes.resize(bytes.len().div_ceil(align) * align, 0);
    if patches.is_empty() {
        return Ok(ArgSpec::Scalar {
            ty: ElemType::B8,
            bytes,
        });
    }
    let len = bytes.len();
    Ok(ArgSpec::ByValue(Box::new(ByValue {
        base: Base::Bytes(bytes),
        len,
        patches,
    })))
}

/// Parses `bytes[N]:INIT` with an optional `{OFF=FIELD,…}` (the text after `bytes`).
///
/// # Errors
/// A bad count or initialiser, a patch without an offset, outside the N bytes, misaligned
/// or overlapping another.
pub fn parse_bytes(spec: &str, rest: &str) -> Result<ArgSpec, String> {
    let (raw, patch_text) = match rest.find('{') {
        Some(i) => {
            let p = rest[i + 1..].strip_suffix('}').ok_or_else(|| {
                format!("`{spec}`: the patches are written {{OFF=FIELD,…}} at the end")
            })?;
            (&rest[..i], Some(p))
        }
        None => (rest, None),
    };
    let buffer = parse_spec(&format!("u8{raw}")).map_err(|e| e.replacen("`u8", "`bytes", 1))?;
    let ArgSpec::Buffer { count, .. } = buffer else {
        return Err(format!(
            "`{spec}`: raw bytes are written bytes[N]:zero, fill=V, file=PATH or [b0,…]"
        ));
    };
    let mut patches: Vec<(usize, Patch)> = Vec::new();
    for text in patch_text.map(top_level_fields).unwrap_or_default() {
        if text.trim().is_empty() {
            continue;
        }
        let (at, f) = offset_of(text)?;
        let off = at.ok_or_else(|| {
            format!("`{spec}`: each patch of raw bytes names its offset: OFF=FIELD, not `{text}`")
        })?;
        let Field::Patch(p) = field(f).map_err(|e| format!("`{spec}`: {e}"))? else {
            return Err(format!(
                "`{spec}`: patch `{text}`: raw bytes are patched with addresses (u64:@REF) and tensor maps (tmap(SPEC)); put scalars in the bytes"
            ));
        };
        if off % p.align() != 0 {
            return Err(format!(
                "`{spec}`: the patch at offset {off} is not aligned to {} bytes",
                p.align()
            ));
        }
        if off + p.size() > count {
            return Err(format!(
                "`{spec}`: the patch at offset {off} ({} bytes) ends past the {count} bytes",
                p.size()
            ));
        }
        patches.push((off, p));
    }
    patches.sort_by_key(|(o, _)| *o);
    for w in patches.windows(2) {
        if w[0].0 + w[0].1.size() > w[1].0 {
            return Err(format!(
                "`{spec}`: the patches at offsets {} and {} overlap",
                w[0].0, w[1].0
            ));
        }
    }
    Ok(ArgSpec::ByValue(Box::new(ByValue {
        base: Base::Raw(Box::new(buffer)),
        len: count,
        patches,
    })))
}

/// Parses a lone `u64:@REF[+BYTES]` argument, if `spec` is one.
pub fn parse_address(spec: &str) -> Option<Result<ArgSpec, String>> {
    let p = address(spec.trim())?;
    Some(p.map(|p| {
        ArgSpec::ByValue(Box::new(ByValue {
            base: Base::Bytes(vec![0; 8]),
            len: 8,
            patches: vec![(0, p)],
        }))
    }))
}

impl ByValue {
    /// The same argument with relative `file=` paths (its own and its tensor maps') taken
    /// from `dir`.
    pub fn relative_to(self, dir: &Path) -> ByValue {
        let base = match self.base {
            Base::Raw(b) => Base::Raw(Box::new(b.relative_to(dir))),
            b @ Base::Bytes(_) => b,
        };
        ByValue { base, ..self }
    }

    /// The finished bytes, given each referenced buffer's (address, length).
    ///
    /// # Errors
    /// An unreadable file, a buffer `resolve` does not know, an address offset outside its
    /// buffer, or a tensor map its buffer cannot hold.
    pub fn bytes(&self, resolve: &ResolveBuffer<'_>) -> Result<Vec<u8>, String> {
        let mut out = match &self.base {
            Base::Bytes(b) => b.clone(),
            Base::Raw(spec) => spec.buffer_bytes()?,
        };
        for (off, p) in &self.patches {
            let bytes = match p {
                Patch::Address { target, add } => {
                    let (addr, len) = resolve(target)?;
                    if *add > len as u64 {
                        return Err(format!(
                            "the address at offset {off}: {target} has {len} bytes, offset {add} is past its end"
                        ));
                    }
                    (addr + add).to_le_bytes().to_vec()
                }
                Patch::TensorMap(t) => {
                    let Some(r) = &t.buf else {
                        return Err(format!("the tensor map at offset {off} names no buffer"));
                    };
                    t.bytes(resolve(r)?)
                        .map_err(|e| format!("the tensor map at offset {off}: {e}"))?
                }
            };
            out[*off..*off + bytes.len()].copy_from_slice(&bytes);
        }
        Ok(out)
    }

    /// Every buffer it refers to.
    pub fn buffers(&self) -> Vec<&BufRef> {
        self.patches.iter().flat_map(|(_, p)| p.buffers()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    fn resolve(r: &BufRef) -> Result<(u64, usize), String> {
        match r {
            BufRef::Index(0) => Ok((0x7000_0000, 4096)),
            BufRef::Name(n) if n == "A" => Ok((0x8000_0000, 8192)),
            other => Err(format!("no {other}")),
        }
    }

    fn by_value(s: &str) -> ByValue {
        match parse(s).unwrap() {
            ArgSpec::ByValue(b) => *b,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn structs_hold_addresses_at_c_offsets() {
        // { int n; float* a; float* b; }: 4 bytes, 4 of padding, two pointers.
        let b = by_value("{s32:7, u64:@0, u64:@A+16}");
        assert_eq!(b.len, 24);
        let bytes = b.bytes(&resolve).unwrap();
        assert_eq!(bytes[0..4], 7i32.to_le_bytes());
        assert_eq!(bytes[8..16], 0x7000_0000u64.to_le_bytes());
        assert_eq!(bytes[16..24], 0x8000_0010u64.to_le_bytes());
        // A tensor map is 128 bytes aligned to 64; explicit offsets place fields.
        let b = by_value(
            "{u64:@0, tmap(tiled,dtype=f16,buf=A,dims=64x32,strides=128,box=64x8), 200=u32:9}",
        );
        assert_eq!(b.patches[1].0, 64);
        assert_eq!(b.len, 256, "padded to the tensor map's alignment");
        let bytes = b.bytes(&resolve).unwrap();
        let m = emu::semantics::tma::TensorMap::decode(bytes[64..192].try_into().unwrap());
        assert_eq!((m.addr, m.dims[1]), (0x8000_0000, 32));
        assert_eq!(bytes[200..204], 9u32.to_le_bytes());
        // Without an address or map it is a plain struct, as before.
        assert!(matches!(
            parse("{s32:1, f64:2}").unwrap(),
            ArgSpec::Scalar { .. }
        ));
    }

    #[test]
    fn raw_bytes_are_patched() {
        let b = by_value(
            "bytes[256]:fill=255{8=u64:@0+4,64=tmap(tiled,dtype=u8,buf=0,dims=256,box=16)}",
        );
        let bytes = b.bytes(&resolve).unwrap();
        assert_eq!(bytes[0..8], [255; 8]);
        assert_eq!(bytes[8..16], 0x7000_0004u64.to_le_bytes());
        assert_eq!(bytes[192..256], [255; 64]);
        assert!(matches!(
            parse("bytes[4]:[1,2,3,4]").unwrap(),
            ArgSpec::ByValue(_)
        ));
        let lone = by_value("u64:@A+8");
        assert_eq!(lone.bytes(&resolve).unwrap(), 0x8000_0008u64.to_le_bytes());
    }

    #[test]
    fn bad_specs_are_refused_by_name() {
        let e = |s: &str| parse(s).unwrap_err();
        assert!(e("{u32:1, 2=u64:@0}").contains("overlaps"));
        assert!(e("{u32:1, 12=u64:@0}").contains("alignment 8"));
        assert!(e("{u32:@0}").contains("64 bits"));
        assert!(e("{u64:@0+x}").contains("byte count"));
        assert!(e("{u64:@-3}").contains("names no buffer"));
        assert!(e("{tmap(tiled,dtype=f16,dims=64,box=64,data=f16[64]:zero)}").contains("buf=REF"));
        assert!(e("{tmap(tiled,dtype=f16,buf=0,dims=64,box=64}").contains("tmap(SPEC)"));
        assert!(e("bytes[16]:zero{u64:@0}").contains("names its offset"));
        assert!(e("bytes[16]:zero{12=u64:@0}").contains("aligned to 8"));
        assert!(e("bytes[16]:zero{16=u64:@0}").contains("past the 16 bytes"));
        assert!(e("bytes[16]:zero{0=u64:@0,0=u64:@A}").contains("overlap"));
        assert!(e("bytes[16]:zero{0=u32:5}").contains("put scalars in the bytes"));
        assert!(e("bytes[16]:zero{0=u64:@0").contains("at the end"));
        assert!(e("bytes[x]:zero").contains("bad element count"));
        let b = by_value("{u64:@1}");
        assert!(b
            .bytes(&resolve)
            .unwrap_err()
            .contains("no buffer argument 1"));
        let b = by_value("{u64:@A+9000}");
        assert!(b.bytes(&resolve).unwrap_err().contains("past its end"));
    }
}
