//! Making a tensor map from the parameters of the CUDA driver's `cuTensorMapEncodeTiled` /
//! `cuTensorMapEncodeIm2col`, checked against the requirements those functions document
//! (each refusal names the parameter), in ptxemu's 128-byte encoding
//! ([`crate::semantics::tma`], docs/tensor-map.md). Shared by `ptxemu run --arg tmap:` and the
//! Python package's `TensorMap`.
//!
//! Deliberate deviations: a global dimension must be below 2^32 (ptxemu's encoding); the
//! layouts ptxemu does not model (the 128B swizzle with 32-byte atomicity and 8-byte flip, an
//! interleaved row wider than one slice) are refused by name.

use crate::semantics::tma::{Dtype, TensorMap, TMAP_BYTES};
use crate::semantics::tma_rules::{check_address, check_encode, unmodelled};

/// The parameters of one encode call, as the driver takes them: lists dimension 0
/// (innermost) first, the enums by their `CUtensorMap*` numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EncodeParams {
    /// `cuTensorMapEncodeIm2col` (else `…Tiled`).
    pub im2col: bool,
    /// `tensorDataType`.
    pub dtype: Option<Dtype>,
    /// `globalDim`; its length is `tensorRank`.
    pub dims: Vec<i64>,
    /// `globalStrides` in bytes, of dimensions 1 and up.
    pub strides: Vec<i64>,
    /// `boxDim` (tiled maps).
    pub boxes: Vec<i64>,
    /// `elementStrides` (`None`: all 1).
    pub estrides: Option<Vec<i64>>,
    /// `pixelBoxLowerCorner` (im2col; `None`: all 0).
    pub lower: Option<Vec<i64>>,
    /// `pixelBoxUpperCorner` (im2col; `None`: all 0).
    pub upper: Option<Vec<i64>>,
    /// `channelsPerPixel` (im2col).
    pub channels: Option<i64>,
    /// `pixelsPerColumn` (im2col).
    pub pixels: Option<i64>,
    /// `CUtensorMapInterleave`: 0 none, 1 16B, 2 32B.
    pub interleave: u32,
    /// `CUtensorMapSwizzle`: 0 none, 1 32B, 2 64B, 3 128B, 4 128B with 32-byte atomicity,
    /// 5 the same with 8-byte flip, 6 128B with 64-byte atomicity.
    pub swizzle: u32,
    /// `CUtensorMapL2promotion`: 0 none, 1 64B, 2 128B, 3 256B.
    pub l2: u32,
    /// `CUtensorMapFloatOOBfill`: 0 zero, 1 NaN (NAN_REQUEST_ZERO_FMA).
    pub oob: u32,
}

/// Encodes `p` (the global address left 0: [`with_address`] places it).
///
/// # Errors
/// A message naming the parameter and the requirement it breaks.
pub fn encode(p: &EncodeParams) -> Result<TensorMap, String> {
    let mut m = TensorMap::decode(&[0; TMAP_BYTES]);
    m.im2col = p.im2col;
    let dtype = p
        .dtype
        .ok_or("a tensor map needs a data type (tensorDataType)")?;
    m.dtype = dtype.code();
    if p.interleave > 2 {
        return Err(format!(
            "interleave {}: expected 0 to 2 (none, 16B, 32B)",
            p.interleave
        ));
    }
    m.interleave = p.interleave;
    if p.swizzle > 6 {
        return Err(format!("swizzle {}: expected 0 to 6", p.swizzle));
    }
    (m.swizzle, m.atomicity) = if p.swizzle >= 4 {
        (3, p.swizzle - 3)
    } else {
        (p.swizzle, 0)
    };
    if p.l2 > 3 {
        return Err(format!("l2Promotion {}: expected 0 to 3", p.l2));
    }
    m.l2 = p.l2;
    if p.oob > 1 {
        return Err(format!("oobFill {}: expected 0 (zero) or 1 (NaN)", p.oob));
    }
    m.fill = p.oob;
    let rank = shape(&mut m, p)?;
    if p.im2col {
        im2col_box(&mut m, p, rank)?;
    } else {
        if p.boxes.len() != rank {
            return Err(format!("boxDim: a rank-{rank} map takes {rank} box sizes"));
        }
        for (d, &b) in p.boxes.iter().enumerate() {
            if !(1..=256).contains(&b) {
                return Err(format!("boxDim[{d}] = {b}: must be 1 to 256"));
            }
            m.boxes[d] = b as u32;
        }
    }
    // The interleave-dependent rules (rank, 32-byte strides, 32B swizzle, the box's inner
    // dimension), then the layouts ptxemu leaves unmodelled.
    check_encode(&m).map_err(|e| e.to_string())?;
    m.pattern().map_err(|e| format!("swizzle: {e}"))?;
    if let Some(why) = unmodelled(&m) {
        return Err(why);
    }
    if m.fill == 1 && !dtype.is_float() {
        return Err("oobFill NaN (NAN_REQUEST_ZERO_FMA) needs a floating-point data type".into());
    }
    Ok(m)
}

/// `m` over the tensor at `addr` (a buffer's address plus the map's byte offset).
///
/// # Errors
/// The address is not 16-byte (32 with 32B interleave) aligned.
pub fn with_address(mut m: TensorMap, addr: u64) -> Result<TensorMap, String> {
    check_address(m.interleave, addr).map_err(|e| e.to_string())?;
    m.addr = addr;
    Ok(m)
}

/// The rank, dimensions, byte strides and element strides; returns the rank.
fn shape(m: &mut TensorMap, p: &EncodeParams) -> Result<usize, String> {
    let rank = p.dims.len();
    m.rank = rank as u32;
    if !(1..=5).contains(&rank) || (m.im2col && rank < 3) {
        return Err(format!(
            "tensorRank {rank}: {} (the length of globalDim)",
            if m.im2col {
                "im2col maps have rank 3 to 5"
            } else {
                "the rank is 1 to 5"
            }
        ));
    }
    for (d, &n) in p.dims.iter().enumerate() {
        if n < 1 || n > i64::from(u32::MAX) {
            return Err(format!(
                "globalDim[{d}] = {n}: must be 1 or more and (in ptxemu's encoding) below 2^32"
            ));
        }
        m.dims[d] = n as u32;
    }
    if p.strides.len() != rank - 1 {
        return Err(format!(
            "globalStrides: {} byte stride(s) given; a rank-{rank} map takes {} (dimensions 1 and up)",
            p.strides.len(),
            rank - 1
        ));
    }
    for (d, &s) in p.strides.iter().enumerate() {
        // The driver documents a multiple of 16 below 2^40; 0 (a dimension of size 1 that
        // repeats, as CUTLASS writes an unused batch dimension) is one.
        if s < 0 || s % 16 != 0 || s >= 1 << 40 {
            return Err(format!(
                "globalStrides[{d}] = {s}: must be a multiple of 16 below 2^40"
            ));
        }
        m.strides[d + 1] = s as u64;
    }
    let estrides = p.estrides.clone().unwrap_or_else(|| vec![1; rank]);
    if estrides.len() != rank {
        return Err(format!(
            "elementStrides: a rank-{rank} map takes {rank} element strides"
        ));
    }
    for (d, &e) in estrides.iter().enumerate() {
        if !(1..=8).contains(&e) {
            return Err(format!("elementStrides[{d}] = {e}: must be 1 to 8"));
        }
        m.estrides[d] = e as u32;
    }
    Ok(rank)
}

/// An im2col map's channels, pixels and bounding-box corners.
fn im2col_box(m: &mut TensorMap, p: &EncodeParams, rank: usize) -> Result<(), String> {
    let c = p.channels.ok_or("an im2col map needs channelsPerPixel")?;
    let px = p.pixels.ok_or("an im2col map needs pixelsPerColumn")?;
    if !(1..=256).contains(&c) {
        return Err(format!("channelsPerPixel {c}: must be 1 to 256"));
    }
    if !(1..=1024).contains(&px) {
        return Err(format!("pixelsPerColumn {px}: must be 1 to 1024"));
    }
    m.boxes[0] = c as u32;
    m.pixels = px as u32;
    let spatial = rank - 2;
    let bound = [0, 0, 0, 1 << 15, 1 << 7, 1 << 4][rank];
    for (name, corner, out) in [
        ("Lower", &p.lower, &mut m.lower),
        ("Upper", &p.upper, &mut m.upper),
    ] {
        let v = corner.clone().unwrap_or_else(|| vec![0; spatial]);
        if v.len() != spatial {
            return Err(format!(
                "pixelBox{name}Corner: a rank-{rank} im2col map takes {spatial} corner coordinates"
            ));
        }
        for (s, &x) in v.iter().enumerate() {
            if x < -bound || x >= bound {
                return Err(format!(
                    "pixelBox{name}Corner[{s}] = {x}: a rank-{rank} map allows {} to {}",
                    -bound,
                    bound - 1
                ));
            }
            out[s] = x as i32;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiled() -> EncodeParams {
        EncodeParams {
            dtype: Dtype::from_name("f16"),
            dims: vec![64, 32],
            strides: vec![128],
            boxes: vec![64, 8],
            ..EncodeParams::default()
        }
    }

    #[test]
    fn parameters_become_the_map() {
        let m = with_address(encode(&tiled()).unwrap(), 0x1000).unwrap();
        assert_eq!(
            (m.addr, m.rank, m.dims[1], m.strides[1], m.boxes[1]),
            (0x1000, 2, 32, 128, 8)
        );
        let mut p = tiled();
        p.dims.push(1);
        p.strides.push(0);
        p.boxes.push(1);
        assert!(encode(&p).is_ok(), "a stride of 0 is a multiple of 16");
    }

    #[test]
    fn each_refusal_names_its_parameter() {
        let e = |f: &dyn Fn(&mut EncodeParams)| {
            let mut p = tiled();
            f(&mut p);
            encode(&p).unwrap_err()
        };
        assert!(e(&|p| p.strides = vec![100]).contains("globalStrides[0]"));
        assert!(e(&|p| p.boxes = vec![300, 8]).contains("boxDim[0]"));
        assert!(e(&|p| p.dims = vec![]).contains("tensorRank 0"));
        assert!(e(&|p| p.estrides = Some(vec![9, 1])).contains("elementStrides[0]"));
        assert!(e(&|p| p.swizzle = 9).contains("swizzle 9"));
        assert!(e(&|p| p.dtype = None).contains("data type"));
        assert!(with_address(encode(&tiled()).unwrap(), 0x1008)
            .unwrap_err()
            .contains("16-byte aligned"));
    }
}
