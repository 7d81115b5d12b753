//! The two descriptors of `tcgen05.mma` (PTX ISA "tcgen05 Matrix Descriptors": "Shared memory
//! descriptor" and "Instruction descriptor"), decoded field by field, and the shared-memory
//! address of each matrix element a shared-memory descriptor describes.
//!
//! Shared-memory descriptor, 64 bits (sm_100 form):
//!
//! | bits | field |
//! |---|---|
//! | 0–13 | start address `(addr & 0x3FFFF) >> 4` |
//! | 16–29 | leading dimension byte offset (LBO) `>> 4` |
//! | 32–45 | stride dimension byte offset (SBO) `>> 4` |
//! | 46–48 | fixed version `0b001` |
//! | 49–51 | matrix base offset |
//! | 52 | LBO mode: 0 relative offset, 1 absolute address |
//! | 53–60 | fixed 0 |
//! | 61–63 | swizzle: 0 none, 1 128B with 32B atom, 2 128B, 4 64B, 6 32B |
//!
//! Bits 14–15 and 30–31 are unused and ignored.
//!
//! Instruction descriptor, 32 bits. For `.kind::f16/tf32/f8f6f4/i8`: 0–1 sparsity selector,
//! 2 sparsity, 3 saturate, 4–5 D type (0 F16, 1 F32, 2 S32), 6 reserved, 7–9 A type, 10–12
//! B type, 13/14 negate A/B, 15/16 transpose A/B, 17–22 `N >> 3`, 23 reserved, 24–28 `M >> 4`,
//! 29 reserved, 30–31 maximum shift of `.ws` (0 none, 1 8, 2 16, 3 32). For the block-scaled
//! kinds bit 3 is reserved, 4–5 is the B scale-factor id, 23 the scale type (0 UE4M3, 1 UE8M0),
//! 29–30 the A scale-factor id, and 31 reserved (ptxemu refuses it: sm_103's K = 96 form).
//!
//! The same layout is given by CUTLASS (`cute/arch/mma_sm100_desc.hpp`, `UMMA::InstrDescriptor`
//! and `UMMA::SmemDescriptor`); the unit tests' expected values come from the independent Python
//! model `tests/fixtures/tcgen05/desc_model.py`.
//!
//! Choices where the ISA is silent:
//! 1. The canonical layouts are wgmma's ([`super::wgmma_desc`]); the 128B-with-32B-atom mode
//!    uses the 128-byte layout with CuTe's `Swizzle<2,5,2>` (address bits 5–6 XORed with bits
//!    7–8) instead of `Swizzle<3,4,3>`; its base offset shifts the row phase as the others do.
//!    Not compared with hardware.
//! 2. LBO mode 1 (absolute LBO, "only for the 48-byte K tile") decodes but
//!    [`element_addr`] refuses it: no kind ptxemu runs has a 48-byte K tile.

pub use super::wgmma_desc::Major;
use super::wgmma_desc::{self, MatrixDesc, Swizzle};

/// The swizzle mode of a tcgen05 shared-memory descriptor (bits 61–63).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SmemSwizzle {
    /// 0: no swizzle.
    None,
    /// 1: 128-byte swizzle with 32-byte atoms.
    B128Atom32,
    /// 2: 128-byte swizzle.
    B128,
    /// 4: 64-byte swizzle.
    B64,
    /// 6: 32-byte swizzle.
    B32,
}

impl SmemSwizzle {
    /// The 3-bit encoding.
    pub fn code(self) -> u64 {
        match self {
            SmemSwizzle::None => 0,
            SmemSwizzle::B128Atom32 => 1,
            SmemSwizzle::B128 => 2,
            SmemSwizzle::B64 => 4,
            SmemSwizzle::B32 => 6,
        }
    }

    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            SmemSwizzle::None => "none",
            SmemSwizzle::B128Atom32 => "128B with 32B atom",
            SmemSwizzle::B128 => "128B",
            SmemSwizzle::B64 => "64B",
            SmemSwizzle::B32 => "32B",
        }
    }

    /// The canonical layout family shared with wgmma (same row width).
    fn layout(self) -> Swizzle {
        match self {
            SmemSwizzle::None => Swizzle::None,
            SmemSwizzle::B128Atom32 | SmemSwizzle::B128 => Swizzle::B128,
            SmemSwizzle::B64 => Swizzle::B64,
            SmemSwizzle::B32 => Swizzle::B32,
        }
    }
}

/// The fields of a tcgen05 shared-memory descriptor, addresses and offsets in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SmemDesc {
    /// Start address in the shared window.
    pub start: u64,
    /// Leading dimension byte offset.
    pub lbo: u64,
    /// Stride dimension byte offset.
    pub sbo: u64,
    /// Matrix base offset (bits 49–51).
    pub base_offset: u64,
    /// LBO mode bit 52: the LBO is an absolute address.
    pub lbo_absolute: bool,
    /// Swizzle mode.
    pub swizzle: SmemSwizzle,
}

/// Why a 64-bit shared-memory descriptor is not a valid sm_100 descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmemDescError {
    /// Bits 46–48 must hold version `0b001`.
    Version(u64),
    /// Bits 53–60 must be zero.
    FixedZero(u64),
    /// Bits 61–63 hold a swizzle code the ISA does not define (3, 5 or 7).
    Swizzle(u64),
}

impl std::fmt::Display for SmemDescError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SmemDescError::Version(v) => write!(
                f,
                "shared-memory descriptor bits 46-48 (version) are {v:#05b}, the ISA requires 0b001"
            ),
            SmemDescError::FixedZero(v) => write!(
                f,
                "shared-memory descriptor bits 53-60 (fixed zero) are {v:#x}, the ISA requires 0"
            ),
            SmemDescError::Swizzle(v) => write!(
                f,
                "shared-memory descriptor bits 61-63 (swizzle mode) are {v}, not one of 0, 1, 2, 4, 6"
            ),
        }
    }
}

/// Decodes a 64-bit tcgen05 shared-memory descriptor.
pub fn decode_smem(desc: u64) -> Result<SmemDesc, SmemDescError> {
    let field = |lo: u32| ((desc >> lo) & 0x3FFF) << 4;
    let version = (desc >> 46) & 7;
    if version != 1 {
        return Err(SmemDescError::Version(version));
    }
    let fixed = (desc >> 53) & 0xFF;
    if fixed != 0 {
        return Err(SmemDescError::FixedZero(fixed));
    }
    let swizzle = match desc >> 61 {
        0 => SmemSwizzle::None,
        1 => SmemSwizzle::B128Atom32,
        2 => SmemSwizzle::B128,
        4 => SmemSwizzle::B64,
        6 => SmemSwizzle::B32,
        other => return Err(SmemDescError::Swizzle(other)),
    };
    Ok(SmemDesc {
        start: field(0),
        lbo: field(16),
        sbo: field(32),
        base_offset: (desc >> 49) & 7,
        lbo_absolute: (desc >> 52) & 1 == 1,
        swizzle,
    })
}

/// Encodes the fields (each a multiple of 16 below 2^18) as a descriptor with version 1.
pub fn encode_smem(d: &SmemDesc) -> u64 {
    let field = |x: u64, lo: u32| ((x & 0x3FFFF) >> 4) << lo;
    field(d.start, 0)
        | field(d.lbo, 16)
        | field(d.sbo, 32)
        | (1 << 46)
        | ((d.base_offset & 7) << 49)
        | (u64::from(d.lbo_absolute) << 52)
        | (d.swizzle.code() << 61)
}

/// The XOR pattern of `swizzle` applied to the byte address `addr` with `base_offset`.
pub fn swizzle_addr(swizzle: SmemSwizzle, base_offset: u64, addr: u64) -> u64 {
    match swizzle {
        SmemSwizzle::B128Atom32 => {
            let row = (addr >> 7).wrapping_sub(base_offset) & 3;
            addr ^ (row << 5)
        }
        other => wgmma_desc::swizzle_addr(other.layout(), base_offset, addr),
    }
}

/// Why an element address cannot be computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddrError {
    /// LBO mode 1 (absolute leading-dimension address) is not modelled.
    AbsoluteLbo,
}

/// The location of element `(mn, k)` (row `mn` of A, or column `mn` of B; `k` along K) of a
/// matrix of `elem_bits`-bit elements (1, 4, 8, 16 or 32): `(byte address, bit within the
/// byte)`, the bit numbered from the least significant and nonzero only below 8-bit elements.
pub fn element_addr(
    d: &SmemDesc,
    major: Major,
    elem_bits: u32,
    mn: u32,
    k: u32,
) -> Result<(u64, u32), AddrError> {
    if d.lbo_absolute {
        return Err(AddrError::AbsoluteLbo);
    }
    let md = MatrixDesc {
        start: d.start,
        lbo: d.lbo,
        sbo: d.sbo,
        base_offset: d.base_offset,
        swizzle: d.swizzle.layout(),
    };
    let (addr, bit) = wgmma_desc::unswizzled_addr(&md, major, elem_bits, mn, k);
    Ok((swizzle_addr(d.swizzle, d.base_offset, addr), bit))
}

pub use super::tcgen05_idesc::*;

#[cfg(test)]
#[path = "tcgen05_desc_tests.rs"]
mod tests;
