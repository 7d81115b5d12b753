//! `tmap:driver,...`: a tensor map given as the 128 bytes the CUDA driver wrote
//! (`cuTensorMapEncodeTiled` / `cuTensorMapEncodeIm2col`), decoded with the layout observed on
//! an H100 with driver 580.159.04 (docs/tensor-map.md, "The driver's layout"; recorded maps in
//! litmus/hardware/nvidia-h100/tensor-maps/).
//!
//! `tmap:driver,bytes=HEX256|file=PATH,buf=N[,offset=BYTES]` or
//! `tmap:driver,bytes=...,data=TYPE[N]:INIT` (last). The address inside the bytes is the GPU's
//! and is replaced by the buffer's address plus `offset`, as for `tmap:tiled`. Every bit the
//! recorded maps leave zero must be zero, and every derived field (the box's byte count, the
//! shared-memory alignment of the swizzle) must match the other fields; anything else is
//! refused by the field's name.

use emu::semantics::tma::{Dtype, TensorMap, TMAP_BYTES};

fn rd(b: &[u8], o: usize, n: usize) -> u64 {
    (0..n).fold(0u64, |v, k| v | (u64::from(b[o + k]) << (8 * k)))
}

fn bits(w: u64, shift: u32, width: u32) -> u32 {
    ((w >> shift) & ((1 << width) - 1)) as u32
}

/// The driver's element-type number (flags bits 7-10) and the tf32 bit (16) as a
/// `CUtensorMapDataType`.
fn dtype_of(hw: u32, tf32: bool) -> Result<Dtype, String> {
    // The driver's numbers follow `tensormap.replace`'s order (f32.ftz 8, f64 9, bf16 10),
    // not CUtensorMapDataType's; tf32 is f32 / f32.ftz with bit 16 set.
    let code = match (hw, tf32) {
        (0..=10, false) => hw,
        (7, true) => 11,
        (8, true) => 12,
        _ => {
            return Err(format!(
                "element type field {hw} (tf32 bit {}) is not one the recorded maps cover",
                u8::from(tf32)
            ))
        }
    };
    Dtype::from_code(code).ok_or_else(|| format!("element type {code}"))
}

fn zero(b: &[u8], range: std::ops::Range<usize>, what: &str) -> Result<(), String> {
    match range.clone().find(|&k| b[k] != 0) {
        Some(k) => Err(format!(
            "byte {k} = {:#04x}: {what} (zero in every recorded driver map)",
            b[k]
        )),
        None => Ok(()),
    }
}

fn sext(v: u64, width: u32) -> i32 {
    let s = 64 - width;
    (((v << s) as i64) >> s) as i32
}

/// Decodes a driver-made map; `addr` keeps the GPU address it holds.
///
/// # Errors
/// The name of the first field whose value the recorded maps do not cover.
pub fn decode(b: &[u8; TMAP_BYTES]) -> Result<TensorMap, String> {
    let mut m = TensorMap::decode(&[0; TMAP_BYTES]);
    m.addr = rd(b, 0, 8);
    let f = rd(b, 8, 4);
    if f & 0xfff8_000e != 0 {
        return Err(format!(
            "flags word {f:#010x}: bits 1-3 or 19-31 are set (never in a recorded map)"
        ));
    }
    m.im2col = f & 1 != 0;
    m.rank = bits(f, 4, 3) + 1;
    if m.rank > 5 || (m.im2col && m.rank < 3) {
        return Err(format!(
            "rank field {}: not a rank the driver writes",
            m.rank - 1
        ));
    }
    let dt = dtype_of(bits(f, 7, 4), bits(f, 16, 1) != 0)?;
    m.dtype = dt.code();
    m.interleave = bits(f, 11, 2);
    if m.interleave == 3 {
        return Err("interleave field 3: not CU_TENSOR_MAP_INTERLEAVE_*".into());
    }
    m.swizzle = bits(f, 13, 2);
    m.fill = bits(f, 15, 1);
    m.l2 = bits(f, 17, 2);
    let rank = m.rank as usize;
    for d in 1..5 {
        let s = rd(b, 12 + 4 * (d - 1), 4);
        if d >= rank && s != 0 {
            return Err(format!("globalStrides[{}]: set beyond the rank", d - 1));
        }
        if d < rank {
            m.strides[d] = s << 4;
        }
    }
    zero(
        b,
        28..32,
        "above the strides (their high bits are not covered)",
    )?;
    for d in 0..5 {
        let n = rd(b, 32 + 4 * d, 4) + 1;
        if d >= rank && n != 1 {
            return Err(format!("globalDim[{d}]: set beyond the rank"));
        }
        if d < rank {
            m.dims[d] = u32::try_from(n).map_err(|_| format!("globalDim[{d}] = {n}: 2^32"))?;
        }
    }
    let es = rd(b, 52, 2);
    if es >> 15 != 0 {
        return Err("element strides: bit 15 set".into());
    }
    zero(b, 54..55, "between the element strides and the box")?;
    for d in 0..5 {
        m.estrides[d] = bits(es, 3 * d as u32, 3) + 1;
        if d >= rank && m.estrides[d] != 1 {
            return Err(format!("elementStrides[{d}]: set beyond the rank"));
        }
    }
    if m.im2col {
        corners(b, &mut m)?;
    } else {
        for d in 0..5 {
            m.boxes[d] = u32::from(b[55 + d]) + 1;
            if d >= rank && m.boxes[d] != 1 {
                return Err(format!("boxDim[{d}]: set beyond the rank"));
            }
        }
        zero(b, 60..64, "im2col pixelsPerColumn in a tiled map")?;
    }
    derived(b, &m, dt)?;
    zero(b, 80..128, "after the derived fields")?;
    Ok(m)
}

/// im2col: channelsPerPixel - 1 in byte 55; the corners in bytes 56-59 (rank 3: i16 lower,
/// i16 upper; rank 4: i8 W, H lower, then upper; rank 5: two 16-bit words of three 5-bit
/// fields W, H, D); pixelsPerColumn - 1 in bytes 60-61.
fn corners(b: &[u8], m: &mut TensorMap) -> Result<(), String> {
    m.boxes[0] = u32::from(b[55]) + 1;
    let spatial = m.rank as usize - 2;
    let (lo, hi) = (rd(b, 56, 2), rd(b, 58, 2));
    for s in 0..spatial {
        let (l, u) = match m.rank {
            3 => (sext(lo, 16), sext(hi, 16)),
            4 => (sext(lo >> (8 * s), 8), sext(hi >> (8 * s), 8)),
            _ => (sext(lo >> (5 * s), 5), sext(hi >> (5 * s), 5)),
        };
        m.lower[s] = l;
        m.upper[s] = u;
    }
    if m.rank == 5 && ((lo | hi) >> 15) != 0 {
        return Err("pixelBox corners: bit 15 of a rank-5 corner word is set".into());
    }
    let p = rd(b, 60, 2);
    if p >= 1024 {
        return Err(format!("pixelsPerColumn field {p}: above 1023"));
    }
    m.pixels = p as u32 + 1;
    zero(b, 62..64, "after pixelsPerColumn")
}

/// Bytes 64-71: the box's bytes in shared memory as the driver computes them (element size ×
/// Π floor(box / elementStride); channels × pixels × element size for im2col). Bytes 72-79:
/// the swizzle's repeat (16 none, 256, 512, 1024).
fn derived(b: &[u8], m: &TensorMap, dt: Dtype) -> Result<(), String> {
    let want = if m.im2col {
        u64::from(m.boxes[0]) * u64::from(m.pixels) * dt.size()
    } else {
        (0..m.rank as usize)
            .map(|d| u64::from(m.boxes[d] / m.estrides[d]))
            .product::<u64>()
            * dt.size()
    };
    let got = rd(b, 64, 8);
    if got != want {
        return Err(format!(
            "box byte count {got}: the other fields give {want} (a layout the recorded maps do not cover)"
        ));
    }
    let align = [16u64, 256, 512, 1024][m.swizzle as usize];
    let got = rd(b, 72, 8);
    if got != align {
        return Err(format!(
            "shared-memory alignment field {got}: swizzle {} gives {align}",
            m.swizzle
        ));
    }
    Ok(())
}

fn hex(s: &str) -> Result<[u8; TMAP_BYTES], String> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    if s.len() != 2 * TMAP_BYTES {
        return Err(format!(
            "bytes=: {} hex digits; a tensor map is 256",
            s.len()
        ));
    }
    let mut b = [0u8; TMAP_BYTES];
    for (k, o) in b.iter_mut().enumerate() {
        *o = u8::from_str_radix(&s[2 * k..2 * k + 2], 16)
            .map_err(|_| format!("bytes=: `{}` is not hex", &s[2 * k..2 * k + 2]))?;
    }
    Ok(b)
}

/// Parses the keys after `tmap:driver,` (the `data=` part already split off); returns the
/// decoded map with `addr` = `offset` and the buffer index.
///
/// # Errors
/// A bad key, unreadable bytes, or a field the recorded maps do not cover.
pub fn parse(body: &str) -> Result<(TensorMap, Option<crate::argspec::BufRef>), String> {
    let (mut bytes, mut buf, mut offset) = (None, None, 0u64);
    for kv in body.split(',').filter(|s| !s.trim().is_empty()) {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("`{kv}`: tensor-map parameters are KEY=VALUE"))?;
        let (k, v) = (k.trim(), v.trim());
        match k {
            "bytes" => bytes = Some(hex(v)?),
            "file" => {
                // Size checked before reading: /dev/zero or a huge file is refused at once.
                let d = crate::bounded::read_exactly(std::path::Path::new(v), 128)
                    .map_err(|e| format!("file=`{v}`: {e} (a tensor map is 128 bytes)"))?;
                bytes = Some(
                    d.as_slice()
                        .try_into()
                        .map_err(|_| format!("file=`{v}`: a tensor map is 128 bytes"))?,
                );
            }
            "buf" => {
                buf = Some(crate::argspec::BufRef::parse(v).map_err(|e| format!("buf=: {e}"))?)
            }
            "offset" => {
                offset = v
                    .parse::<u64>()
                    .map_err(|_| format!("offset=`{v}`: a byte count"))?
            }
            other => {
                return Err(format!(
                    "unknown tmap:driver parameter `{other}` (bytes=, file=, buf=, offset=, data=)"
                ))
            }
        }
    }
    let b = bytes.ok_or("tmap:driver needs bytes=HEX (256 digits) or file=PATH")?;
    let mut m = decode(&b).map_err(|e| format!("driver tensor map: {e}"))?;
    m.addr = offset;
    Ok((m, buf))
}

#[cfg(test)]
#[path = "tmap_arg_driver_tests.rs"]
mod tests;
