//! The tensor-map argument of `ptxemu run --arg`: the parameters of the CUDA driver's
//! `cuTensorMapEncodeTiled` / `cuTensorMapEncodeIm2col`, checked against the requirements
//! those functions document, and encoded in ptxemu's 128-byte layout (docs/tensor-map.md).
//!
//! `tmap:tiled,dtype=f16,buf=0|NAME,dims=64x32,strides=128,box=64x8[,estrides=1x1][,offset=0]
//! [,interleave=none|16B|32B][,swizzle=none|32B|64B|128B|128B_atom_32B|128B_atom_64B][,l2=none]
//! [,oob=zero]` and
//! `tmap:im2col,dtype=f16,buf=0,dims=CxWxHxN,strides=..,lower=WxH,upper=WxH,channels=C,
//! pixels=P[,...]`. Lists are `x`-separated, dimension 0 (innermost) first; `strides` are the
//! byte strides of dimensions 1 and up; `buf=N` names the buffer argument whose address
//! (plus `offset` bytes) is the tensor's global address (`buf=NAME` a named buffer: a
//! `--buffer` or a plan buffer), or a last `data=TYPE[N]:INIT` gives
//! the map a buffer of its own (not a kernel parameter; `--dump` of the map's argument index
//! writes it). The rank is the length of `dims`. `tmap:driver,bytes=HEX|file=PATH,...` takes
//! the 128 bytes the CUDA driver wrote instead (`crate::tmap_arg_driver`).

use emu::host::tensor_map::{encode, EncodeParams};
use emu::semantics::tma::{Dtype, TensorMap};
use emu::semantics::tma_rules::{check_address, check_encode, unmodelled};

/// A parsed tensor-map argument: the map (its address still relative to the buffer) and
/// the buffer argument it points into.
#[derive(Clone, Debug, PartialEq)]
pub struct TmapSpec {
    /// The map; `addr` holds the byte offset into the buffer.
    pub map: TensorMap,
    /// The buffer (`buf=N`, a buffer argument's index, or `buf=NAME`, a named buffer), or
    /// `None` with `data=`.
    pub buf: Option<crate::argspec::BufRef>,
    /// The map's own buffer (`data=TYPE[N]:INIT`).
    pub data: Option<Box<crate::argspec::ArgSpec>>,
}

const SWIZZLES: [(&str, u32); 7] = [
    ("none", 0),
    ("32B", 1),
    ("64B", 2),
    ("128B", 3),
    ("128B_atom_32B", 4),
    ("128B_atom_32B_flip_8B", 5),
    ("128B_atom_64B", 6),
];

fn list(key: &str, v: &str) -> Result<Vec<i64>, String> {
    v.split('x')
        .map(|x| {
            x.trim()
                .parse::<i64>()
                .map_err(|_| format!("{key}=`{v}`: `{x}` is not an integer"))
        })
        .collect()
}

fn pick(names: &[(&str, u32)], key: &str, v: &str) -> Result<u32, String> {
    names
        .iter()
        .find(|n| n.0.eq_ignore_ascii_case(v))
        .map(|n| n.1)
        .ok_or_else(|| {
            let all: Vec<&str> = names.iter().map(|n| n.0).collect();
            format!("{key}=`{v}`: expected one of {}", all.join(", "))
        })
}

/// Parses the text after `tmap:`.
///
/// # Errors
/// A message naming the parameter and the requirement it breaks.
pub fn parse(body: &str) -> Result<TmapSpec, String> {
    let (body, data) = match body.split_once(",data=") {
        Some((b, d)) => {
            let spec = crate::argspec::parse(d).map_err(|e| format!("data=: {e}"))?;
            if !matches!(spec, crate::argspec::ArgSpec::Buffer { .. }) {
                return Err("data= is a buffer, TYPE[N]:INIT".into());
            }
            (b, Some(Box::new(spec)))
        }
        None => (body, None),
    };
    let mut parts = body.split(',');
    let mode = parts.next().unwrap_or_default().trim();
    let im2col = match mode {
        "tiled" => false,
        "im2col" => true,
        "driver" => {
            let rest = body.split_once(',').map_or("", |r| r.1);
            let (m, buf) = crate::tmap_arg_driver::parse(rest)?;
            return checked(m, buf, data);
        }
        other => {
            return Err(format!(
                "tmap:`{other}`: the mode is tiled, im2col or driver"
            ))
        }
    };
    let mut p = EncodeParams {
        im2col,
        ..EncodeParams::default()
    };
    let (mut buf, mut offset) = (None, 0u64);
    let (mut dims, mut boxes) = (None, None);
    for kv in parts {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("`{kv}`: tensor-map parameters are KEY=VALUE"))?;
        let (k, v) = (k.trim(), v.trim());
        let one = |key: &str| -> Result<i64, String> {
            match list(key, v)?.as_slice() {
                [x] => Ok(*x),
                _ => Err(format!("{key}=`{v}`: one number")),
            }
        };
        match k {
            "dtype" => {
                p.dtype = Some(Dtype::from_name(v).ok_or_else(|| {
                    format!("dtype=`{v}`: expected u8, u16, u32, s32, u64, s64, f16, f32, f32_ftz, f64, bf16, tf32 or tf32_ftz")
                })?)
            }
            "buf" => buf = Some(crate::argspec::BufRef::parse(v).map_err(|e| format!("buf=: {e}"))?),
            "offset" => offset = v.parse::<u64>().map_err(|_| format!("offset=`{v}`: a byte count"))?,
            "dims" => dims = Some(list(k, v)?),
            "strides" => p.strides = list(k, v)?,
            "box" => boxes = Some(list(k, v)?),
            "estrides" => p.estrides = Some(list(k, v)?),
            "lower" => p.lower = Some(list(k, v)?),
            "upper" => p.upper = Some(list(k, v)?),
            "channels" => p.channels = Some(one(k)?),
            "pixels" => p.pixels = Some(one(k)?),
            "interleave" => p.interleave = pick(&[("none", 0), ("16B", 1), ("32B", 2)], k, v)?,
            "swizzle" => p.swizzle = pick(&SWIZZLES, k, v)?,
            "l2" => p.l2 = pick(&[("none", 0), ("64B", 1), ("128B", 2), ("256B", 3)], k, v)?,
            "oob" => p.oob = pick(&[("zero", 0), ("nan", 1)], k, v)?,
            other => return Err(format!("unknown tensor-map parameter `{other}`")),
        }
    }
    if p.dtype.is_none() {
        return Err("a tensor map needs dtype=".into());
    }
    if buf.is_some() == data.is_some() {
        return Err(NEEDS_TENSOR.into());
    }
    p.dims = dims.ok_or("a tensor map needs dims=")?;
    if !im2col {
        p.boxes = boxes.ok_or("a tiled map needs box=")?;
    } else if boxes.is_some() {
        return Err("an im2col map takes channels= and pixels=, not box=".into());
    }
    if im2col && p.channels.is_none() {
        return Err("an im2col map needs channels= (channelsPerPixel)".into());
    }
    if im2col && p.pixels.is_none() {
        return Err("an im2col map needs pixels= (pixelsPerColumn)".into());
    }
    let mut m = encode(&p)?;
    m.addr = offset;
    Ok(TmapSpec { map: m, buf, data })
}

const NEEDS_TENSOR: &str = "a tensor map needs exactly one of buf=N (a buffer argument) or buf=NAME (a named buffer) and a last data=TYPE[N]:INIT";

/// The checks of a map given as the driver's bytes (`tmap:driver`).
fn checked(
    m: TensorMap,
    buf: Option<crate::argspec::BufRef>,
    data: Option<Box<crate::argspec::ArgSpec>>,
) -> Result<TmapSpec, String> {
    if buf.is_some() == data.is_some() {
        return Err(NEEDS_TENSOR.into());
    }
    let dtype = m.elem().ok_or("an unknown dtype")?;
    check_encode(&m).map_err(|e| e.to_string())?;
    m.pattern().map_err(|e| format!("swizzle={e}"))?;
    if let Some(why) = unmodelled(&m) {
        return Err(why);
    }
    if m.fill == 1 && !dtype.is_float() {
        return Err("oob=nan (NAN_REQUEST_ZERO_FMA) needs a floating-point dtype".into());
    }
    Ok(TmapSpec { map: m, buf, data })
}

impl TmapSpec {
    /// The 128 parameter bytes, given the buffer's (address, length).
    ///
    /// # Errors
    /// The global address is not 16-byte (32 with 32B interleave) aligned, or the offset is
    /// outside the buffer.
    pub fn bytes(&self, buffer: (u64, usize)) -> Result<Vec<u8>, String> {
        let mut m = self.map;
        if m.addr >= buffer.1 as u64 {
            return Err(format!(
                "offset {} is outside the tensor's buffer ({} bytes)",
                m.addr, buffer.1
            ));
        }
        m.addr += buffer.0;
        check_address(m.interleave, m.addr).map_err(|e| e.to_string())?;
        Ok(m.encode().to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiled_maps_encode_their_parameters() {
        let s =
            parse("tiled,dtype=f16,buf=1,dims=64x32,strides=128,box=64x8,swizzle=128B").unwrap();
        assert_eq!(s.buf, Some(crate::argspec::BufRef::Index(1)));
        let n = parse("tiled,dtype=f16,buf=A,dims=64x32x1,strides=128x0,box=64x8x1").unwrap();
        assert_eq!(n.buf, Some(crate::argspec::BufRef::Name("A".into())));
        let d = parse("tiled,dtype=u8,dims=16,box=16,data=u8[16]:fill=3").unwrap();
        assert!(d.buf.is_none() && d.data.is_some());
        let b = s.bytes((0x1000, 4096)).unwrap();
        let m = TensorMap::decode(b.as_slice().try_into().unwrap());
        assert_eq!(
            (m.addr, m.rank, m.dims[1], m.strides[1]),
            (0x1000, 2, 32, 128)
        );
        assert_eq!((m.boxes[0], m.boxes[1], m.swizzle), (64, 8, 3));
    }

    #[test]
    fn driver_requirements_are_refused_by_name() {
        let e = |t: &str| parse(t).unwrap_err();
        assert!(
            e("tiled,dtype=f16,buf=0,dims=64x32,strides=100,box=64x8").contains("globalStrides[0]")
        );
        assert!(e("tiled,dtype=f16,buf=0,dims=64x32,strides=128,box=300x8").contains("boxDim[0]"));
        assert!(
            e("tiled,dtype=f16,buf=0,dims=64x32,strides=128,box=4x8").contains("multiple of 16")
        );
        assert!(
            e("tiled,dtype=f32,buf=0,dims=64x32,strides=256,box=64x8,swizzle=128B")
                .contains("swizzle span")
        );
        assert!(e("tiled,dtype=u8,buf=0,dims=64,box=64,oob=nan").contains("floating-point"));
        assert!(
            e("tiled,dtype=f16,buf=0,dims=64x32,strides=128,box=64x8,estrides=9x1")
                .contains("elementStrides[0]")
        );
        assert!(e("im2col,dtype=f16,buf=0,dims=16x8x8x2,strides=32x256x2048,lower=-200x0,upper=0x0,channels=16,pixels=8").contains("pixelBoxLowerCorner[0]"));
        let s = parse("tiled,dtype=f16,buf=0,dims=64,box=64,offset=8").unwrap();
        assert!(s
            .bytes((0x1000, 128))
            .unwrap_err()
            .contains("16-byte aligned"));
    }

    #[test]
    fn interleave_rules_are_the_drivers() {
        let e = |t: &str| parse(t).unwrap_err();
        // tensorRank 3 or more.
        assert!(
            e("tiled,dtype=f16,buf=0,dims=8x4,strides=16,box=8x4,interleave=16B")
                .contains("tensorRank 2")
        );
        // 32B interleave: strides multiple of 32, swizzle 32B, address 32-byte aligned.
        assert!(e("tiled,dtype=f16,buf=0,dims=16x5x3,strides=48x240,box=16x4x2,interleave=32B,swizzle=32B")
            .contains("globalStrides[0] = 48: must be a multiple of 32"));
        assert!(e("tiled,dtype=f16,buf=0,dims=16x5x3,strides=32x160,box=16x4x2,interleave=32B,swizzle=64B")
            .contains("swizzle 64B"));
        let s = parse("tiled,dtype=f16,buf=0,dims=16x5x3,strides=32x160,box=16x4x2,interleave=32B,swizzle=32B").unwrap();
        assert!(s.bytes((0x1000, 4096)).is_ok());
        assert!(s
            .bytes((0x1010, 4096))
            .unwrap_err()
            .contains("32-byte aligned (32B interleave)"));
        // Interleaved boxes need not be 16-byte multiples, and may stride dimension 0.
        let s = parse("tiled,dtype=u8,buf=0,dims=16x7x3,strides=16x112,box=16x4x2,estrides=2x1x1,interleave=16B,swizzle=128B").unwrap();
        assert_eq!((s.map.interleave, s.map.estrides[0]), (1, 2));
        assert!(
            parse("tiled,dtype=f16,buf=0,dims=6x5x4,strides=16x80,box=6x4x2,interleave=16B")
                .is_ok()
        );
        // A row wider than one slice is not modelled, and says so.
        assert!(
            e("tiled,dtype=f16,buf=0,dims=16x5x3,strides=32x160,box=16x4x2,interleave=16B")
                .contains("wider than one 16-byte interleave slice")
        );
    }

    #[test]
    fn swizzle_atomicities() {
        let s = parse("tiled,dtype=f16,buf=0,dims=64x8,strides=128,box=64x8,swizzle=128B_atom_32B")
            .unwrap();
        assert_eq!((s.map.swizzle, s.map.atomicity), (3, 1));
        let s = parse("tiled,dtype=f16,buf=0,dims=64x8,strides=128,box=64x8,swizzle=128B_atom_64B")
            .unwrap();
        assert_eq!((s.map.swizzle, s.map.atomicity), (3, 3));
        assert!(parse(
            "tiled,dtype=f16,buf=0,dims=64x8,strides=128,box=64x8,swizzle=128B_atom_32B_flip_8B"
        )
        .unwrap_err()
        .contains("not modelled"));
    }

    #[test]
    fn unaligned_offsets_are_refused() {
        let s = parse("tiled,dtype=f16,buf=0,dims=64,box=64,offset=8").unwrap();
        assert!(s
            .bytes((0x1000, 128))
            .unwrap_err()
            .contains("16-byte aligned"));
    }
}
