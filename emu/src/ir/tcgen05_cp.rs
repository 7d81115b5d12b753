//! The typed payload of `tcgen05.cp` (PTX ISA "tcgen05.cp"): an asynchronous copy of a matrix
//! in shared memory, described by a 64-bit shared-memory descriptor, into Tensor Memory.
//!
//! `tcgen05.cp.cta_group.shape{.multicast}{.dst_fmt.src_fmt} [taddr], s-desc;`

use super::tcgen05::CtaGroup;

/// `.shape`: the rows and bits per row of the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpShape {
    /// `.128x256b`
    S128x256b,
    /// `.4x256b`
    S4x256b,
    /// `.128x128b`
    S128x128b,
    /// `.64x128b` (needs `.warpx2::02_13` or `.warpx2::01_23`)
    S64x128b,
    /// `.32x128b` (needs `.warpx4`)
    S32x128b,
}

impl CpShape {
    /// The qualifier as written, without the dot.
    pub fn name(self) -> &'static str {
        match self {
            CpShape::S128x256b => "128x256b",
            CpShape::S4x256b => "4x256b",
            CpShape::S128x128b => "128x128b",
            CpShape::S64x128b => "64x128b",
            CpShape::S32x128b => "32x128b",
        }
    }

    /// Rows of the source matrix.
    pub fn rows(self) -> u32 {
        match self {
            CpShape::S128x256b | CpShape::S128x128b => 128,
            CpShape::S4x256b => 4,
            CpShape::S64x128b => 64,
            CpShape::S32x128b => 32,
        }
    }

    /// 32-bit words (Tensor Memory columns) per row.
    pub fn words(self) -> u32 {
        match self {
            CpShape::S128x256b | CpShape::S4x256b => 8,
            CpShape::S128x128b | CpShape::S64x128b | CpShape::S32x128b => 4,
        }
    }
}

/// `.multicast`: how the rows are replicated over the four 32-lane sub-partitions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpMulticast {
    /// `.warpx2::02_13`: warps 0 and 2, and 1 and 3, form pairs
    Warpx2_02_13,
    /// `.warpx2::01_23`: warps 0 and 1, and 2 and 3, form pairs
    Warpx2_01_23,
    /// `.warpx4`: all four warps receive the rows
    Warpx4,
}

impl CpMulticast {
    /// The qualifier as written, without the dot.
    pub fn name(self) -> &'static str {
        match self {
            CpMulticast::Warpx2_02_13 => "warpx2::02_13",
            CpMulticast::Warpx2_01_23 => "warpx2::01_23",
            CpMulticast::Warpx4 => "warpx4",
        }
    }
}

/// `.b8x16.src_fmt`: decompression of 16 narrow elements into 16 bytes during the copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpDecompress {
    /// `.b8x16.b6x16_p32`: 16 six-bit elements (12 bytes) and 4 bytes of padding
    B6x16P32,
    /// `.b8x16.b4x16_p64`: 16 four-bit elements (8 bytes) and 8 bytes of padding
    B4x16P64,
}

impl CpDecompress {
    /// The source format qualifier, without the dot.
    pub fn name(self) -> &'static str {
        match self {
            CpDecompress::B6x16P32 => "b6x16_p32",
            CpDecompress::B4x16P64 => "b4x16_p64",
        }
    }
}

/// `tcgen05.cp.cta_group.shape{.multicast}{.b8x16.src_fmt} [taddr], s-desc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tcgen05Cp {
    /// The CTA group.
    pub group: CtaGroup,
    /// The copy shape.
    pub shape: CpShape,
    /// The multicast, where the shape takes one.
    pub multicast: Option<CpMulticast>,
    /// The decompression, if any.
    pub decompress: Option<CpDecompress>,
}
