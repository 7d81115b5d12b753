//! Interleaved tensor maps: the layout a copy uses, and the requirements `cuTensorMapEncodeTiled`
//! and `cuTensorMapEncodeIm2col` place on the interleave, swizzle, stride, box and address
//! parameters (CUDA driver API, `cuda.h` 13.x; PTX ISA "Tensors": "Interleave layout",
//! "Traversal-Stride", "Bounding Box").
//!
//! What the sources say: an interleaved tensor keeps its channels in slices of 16 bytes
//! (`CU_TENSOR_MAP_INTERLEAVE_16B`, e.g. NC/8HWC8 with 2-byte channels) or 32 bytes
//! (`_32B`, NC/16HWC16), the last slice zero-padded; the PTX ISA's example writes such a tensor
//! with the slice as its innermost dimension ("1x2x10x10xC16"). Interleaved maps have rank 3 to
//! 5; with 32B interleave the global address and every stride are multiples of 32 and the
//! swizzle must be 32B; without interleave `boxDim[0] * elementSize` is a multiple of 16 and,
//! swizzled, at most the swizzle span, and `elementStrides[0]` is ignored (PTX: "must always
//! be 1"), while an interleaved map may use a traversal stride in dimension 0.
//!
//! What ptxemu chooses where the sources are silent (docs/tensor-map.md): dimension 0 of an
//! interleaved map is the channel index within one slice, so an element's global address is
//! the usual `address + c0 * elementSize + Σ c[d] * stride[d]`; in shared memory every
//! dimension-0 row of the box occupies exactly one slice (16 or 32 bytes), holding
//! `ceil(boxDim[0] / elementStrides[0])` elements (tile) or `channelsPerPixel` (im2col) followed
//! by slots that, like out-of-bound elements, a load fills with the fill value and a store
//! skips. A row wider than one slice, and an im2col map with `elementStrides[0] != 1`, are
//! refused as not modelled.

use super::tma::{Swizzle, TensorMap};
use std::fmt;

/// `CUtensorMapInterleave`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interleave {
    /// 0: no interleave.
    None,
    /// 1: 16-byte channel slices.
    B16,
    /// 2: 32-byte channel slices.
    B32,
}

impl Interleave {
    /// The layout numbered `n` (`CU_TENSOR_MAP_INTERLEAVE_*`, `tensormap.replace`'s
    /// `interleave_layout`).
    pub fn from_code(n: u32) -> Option<Interleave> {
        [Interleave::None, Interleave::B16, Interleave::B32]
            .get(n as usize)
            .copied()
    }

    /// Bytes of one channel slice (0 without interleave).
    pub fn slice(self) -> u64 {
        match self {
            Interleave::None => 0,
            Interleave::B16 => 16,
            Interleave::B32 => 32,
        }
    }

    /// The alignment the global address and strides need.
    pub fn align(self) -> u64 {
        if self == Interleave::B32 {
            32
        } else {
            16
        }
    }

    fn name(self) -> &'static str {
        ["NONE", "16B", "32B"][self as usize]
    }
}

/// A tensor-map parameter that breaks a requirement the driver documents for
/// `cuTensorMapEncodeTiled` / `cuTensorMapEncodeIm2col`. Each names the parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EncodeError {
    /// `interleave` is not 0-2.
    InterleaveCode(u32),
    /// `tensorRank` below 3 with an interleaved layout.
    InterleaveRank(u32),
    /// `globalAddress` not aligned as the interleave requires.
    Address {
        /// The global address.
        addr: u64,
        /// The alignment it needs, in bytes.
        align: u64,
    },
    /// `globalStrides[dim]` not a multiple of the interleave's alignment.
    Stride {
        /// The index in `globalStrides` (the stride of dimension `dim + 1`).
        dim: usize,
        /// The stride, in bytes.
        stride: u64,
        /// The alignment it needs, in bytes.
        align: u64,
    },
    /// `swizzle` other than 32B with 32B interleave.
    InterleaveSwizzle(u32),
    /// `boxDim[0] * elementSize` (or `channelsPerPixel * elementSize`) not a multiple of 16
    /// without interleave.
    BoxInner {
        /// The inner dimension's width, in bytes.
        bytes: u64,
        /// Whether the map is im2col (the width is then `channelsPerPixel * elementSize`).
        im2col: bool,
    },
    /// The box's inner dimension wider than the swizzle span, without interleave.
    SwizzleSpan {
        /// The inner dimension's width, in bytes.
        bytes: u64,
        /// The swizzle's span, in bytes.
        span: u64,
        /// Whether the map is im2col.
        im2col: bool,
    },
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = |im2col: bool| {
            if im2col {
                "channelsPerPixel * elementSize"
            } else {
                "boxDim[0] * elementSize"
            }
        };
        match self {
            EncodeError::InterleaveCode(n) => write!(f, "interleave {n}: must be 0 (NONE), 1 (16B) or 2 (32B)"),
            EncodeError::InterleaveRank(r) => write!(f, "tensorRank {r}: an interleaved layout needs tensorRank 3 or more"),
            EncodeError::Address { addr, align } => write!(f, "globalAddress 0x{addr:x} is not {align}-byte aligned{}", if *align == 32 { " (32B interleave)" } else { "" }),
            EncodeError::Stride { dim, stride, align } => write!(f, "globalStrides[{dim}] = {stride}: must be a multiple of {align}{}", if *align == 32 { " with 32B interleave" } else { "" }),
            EncodeError::InterleaveSwizzle(s) => write!(f, "swizzle {}: with interleave=32B the swizzle must be 32B", swizzle_name(*s)),
            EncodeError::BoxInner { bytes, im2col } => write!(f, "{} = {bytes} bytes: must be a multiple of 16 without interleave", inner(*im2col)),
            EncodeError::SwizzleSpan { bytes, span, im2col } => write!(f, "{} = {bytes} bytes: more than the {span}-byte swizzle span (without interleave the box's inner dimension must fit the span)", inner(*im2col)),
        }
    }
}

impl std::error::Error for EncodeError {}

fn swizzle_name(s: u32) -> String {
    ["NONE", "32B", "64B", "128B"]
        .get(s as usize)
        .map_or_else(|| s.to_string(), |n| (*n).to_string())
}

/// Checks the interleave-dependent requirements of the encode functions on `m`: the
/// interleave value, the rank, the strides, the swizzle, and the box's inner dimension (the
/// address is checked by [`check_address`], once it is known).
///
/// # Errors
/// The first requirement broken, naming its parameter.
pub fn check_encode(m: &TensorMap) -> Result<(), EncodeError> {
    let il =
        Interleave::from_code(m.interleave).ok_or(EncodeError::InterleaveCode(m.interleave))?;
    if il != Interleave::None && m.rank < 3 {
        return Err(EncodeError::InterleaveRank(m.rank));
    }
    for d in 1..m.rank.min(5) as usize {
        if !m.strides[d].is_multiple_of(il.align()) {
            return Err(EncodeError::Stride {
                dim: d - 1,
                stride: m.strides[d],
                align: il.align(),
            });
        }
    }
    if il == Interleave::B32 && m.swizzle != 1 {
        return Err(EncodeError::InterleaveSwizzle(m.swizzle));
    }
    if il == Interleave::None {
        let e = m.elem().map_or(1, |d| d.size());
        let bytes = u64::from(m.boxes[0]) * e;
        if !bytes.is_multiple_of(16) {
            return Err(EncodeError::BoxInner {
                bytes,
                im2col: m.im2col,
            });
        }
        let span = Swizzle::from_code(m.swizzle).map_or(0, Swizzle::span);
        if span != 0 && bytes > span {
            return Err(EncodeError::SwizzleSpan {
                bytes,
                span,
                im2col: m.im2col,
            });
        }
    }
    Ok(())
}

/// Checks `globalAddress` against the interleave's alignment (16, or 32 for 32B).
///
/// # Errors
/// [`EncodeError::Address`].
pub fn check_address(interleave: u32, addr: u64) -> Result<(), EncodeError> {
    let align = Interleave::from_code(interleave).map_or(16, Interleave::align);
    if addr.is_multiple_of(align) {
        Ok(())
    } else {
        Err(EncodeError::Address { addr, align })
    }
}

/// Why ptxemu does not model copies through this interleaved map (the sources leave its
/// layout open), or `None`.
pub fn unmodelled(m: &TensorMap) -> Option<String> {
    let il = Interleave::from_code(m.interleave)?;
    if il == Interleave::None {
        return None;
    }
    let e = m.elem().map_or(1, |d| d.size());
    let (what, n) = if m.im2col {
        if m.estrides[0] != 1 {
            return Some(format!(
                "an interleaved im2col map with elementStrides[0] = {} is not modelled",
                m.estrides[0]
            ));
        }
        ("channelsPerPixel", u64::from(m.boxes[0]))
    } else {
        (
            "ceil(boxDim[0] / elementStrides[0])",
            u64::from(m.boxes[0].div_ceil(m.estrides[0].max(1))),
        )
    };
    (n * e > il.slice()).then(|| {
        format!(
            "{what} = {n} elements ({} bytes) is wider than one {}-byte interleave slice; \
             ptxemu models interleaved boxes whose rows fit one slice",
            n * e,
            il.slice()
        )
    })
}

/// The elements a box row holds and the row's size in elements in shared memory: for an
/// interleaved map one slice, for others the row itself.
pub fn row(m: &TensorMap, elems: u64) -> u64 {
    let e = m.elem().map_or(1, |d| d.size());
    match Interleave::from_code(m.interleave) {
        Some(il) if il != Interleave::None => (il.slice() / e).max(elems),
        _ => elems,
    }
}

/// The exclusive bound of dimension-0 coordinates: `globalDim[0]`, but for an interleaved map
/// the slice's element count. An H100 (driver 580.159.04) moves whole slices: its loads read
/// the memory's bytes past `globalDim[0]` within a slice, its stores and reductions write them
/// (fixtures `il32_store3d`, `il16_reduce3d_add`, `il16_load5d_nan`; docs/tensor-map.md).
pub fn dim0_bound(m: &TensorMap) -> i64 {
    let e = m.elem().map_or(1, |d| d.size());
    match Interleave::from_code(m.interleave) {
        Some(il) if il != Interleave::None => {
            let per = (il.slice() / e).max(1);
            (u64::from(m.dims[0]).div_ceil(per) * per) as i64
        }
        _ => i64::from(m.dims[0]),
    }
}

impl fmt::Display for Interleave {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
