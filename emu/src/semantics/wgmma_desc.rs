//! The shared-memory matrix descriptor of `wgmma.mma_async` and the address of each matrix
//! element it describes (PTX ISA "Asynchronous Warpgroup Level Matrix Shared Memory Layout":
//! "Matrix Descriptor Format", "Leading Dimension Byte Offset", "Stride Dimension Byte Offset",
//! "Canonical Layouts").
//!
//! A descriptor is 64 bits: bits 0–13 the start address, 16–29 the leading dimension byte
//! offset (LBO), 32–45 the stride dimension byte offset (SBO), each stored as `(x & 0x3FFFF) >>
//! 4`; bits 49–51 the base offset; bits 62–63 the swizzle mode (0 none, 1 128-byte, 2 64-byte,
//! 3 32-byte).
//!
//! The canonical layouts, with `T = 128 / element bits` elements per 16 bytes and `S` the
//! swizzle width in bytes (`s = S / 16`), in the ISA's CuTe notation (strides in elements, LBO
//! and SBO in bytes):
//! * K-major, no swizzle: `((8,m),(T,2k)) : ((1T,SBO),(1,LBO))`;
//! * K-major, swizzled: `((8,m),(T,2k)) : ((sT,SBO),(1,T))`;
//! * MN-major, no swizzle: `((T,1,m),(8,k)) : ((1,T,SBO),(1T,LBO))`;
//! * MN-major, swizzled: `((T,s,m),(8,k)) : ((1,T,LBO),(sT,SBO))`;
//!
//! followed by the swizzle `Swizzle<b,4,3>` (b = 1, 2, 3 for 32, 64, 128 bytes): address bits
//! `4..4+b` are XORed with bits `7..7+b`.
//!
//! Deliberate choices:
//! 1. The swizzle is applied to the absolute shared-memory address, so a start address that
//!    advances inside a swizzle atom (as Triton and CUTLASS do to step along K) sees the same
//!    pattern as the atom's first row. A nonzero base offset `o` (the pattern starts at an
//!    address whose bits 7–9 are `o`) shifts the row phase: the XOR term is
//!    `((addr >> 7) − o) mod 2^b`. The ISA gives the base offset's formula but not this use of
//!    it; ptxemu's reading has not been compared with hardware.
//! 2. The K extent of every wgmma shape is 32 bytes, two 16-byte columns of core matrices,
//!    so the swizzled K-major layouts never use LBO (the ISA: "not used, assumed to be 1").

/// The swizzle mode of a descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Swizzle {
    /// No swizzling (the "interleave" layout).
    None,
    /// 32-byte swizzle.
    B32,
    /// 64-byte swizzle.
    B64,
    /// 128-byte swizzle.
    B128,
}

impl Swizzle {
    /// The swizzle width in bytes (16 for none: one core-matrix row).
    pub fn bytes(self) -> u64 {
        match self {
            Swizzle::None => 16,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 => 128,
        }
    }

    /// `b` of `Swizzle<b,4,3>`: how many address bits are XORed.
    pub fn xor_bits(self) -> u32 {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 1,
            Swizzle::B64 => 2,
            Swizzle::B128 => 3,
        }
    }

    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            Swizzle::None => "none",
            Swizzle::B32 => "32B",
            Swizzle::B64 => "64B",
            Swizzle::B128 => "128B",
        }
    }
}

/// The fields of a matrix descriptor, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatrixDesc {
    /// The start address in the shared window.
    pub start: u64,
    /// Leading dimension byte offset.
    pub lbo: u64,
    /// Stride dimension byte offset.
    pub sbo: u64,
    /// Matrix base offset (bits 49–51).
    pub base_offset: u64,
    /// Swizzle mode.
    pub swizzle: Swizzle,
}

/// Which dimension of the matrix is contiguous in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Major {
    /// K-major (`imm-trans` 0).
    K,
    /// M- or N-major (`imm-trans` 1).
    Mn,
}

/// Decodes a 64-bit matrix descriptor.
pub fn decode(desc: u64) -> MatrixDesc {
    let field = |lo: u32| ((desc >> lo) & 0x3FFF) << 4;
    MatrixDesc {
        start: field(0),
        lbo: field(16),
        sbo: field(32),
        base_offset: (desc >> 49) & 7,
        swizzle: match desc >> 62 {
            0 => Swizzle::None,
            1 => Swizzle::B128,
            2 => Swizzle::B64,
            _ => Swizzle::B32,
        },
    }
}

/// Encodes the fields (each already a multiple of 16 and below 2^18) as a descriptor.
pub fn encode(d: &MatrixDesc) -> u64 {
    let field = |x: u64, lo: u32| ((x & 0x3FFFF) >> 4) << lo;
    let mode = match d.swizzle {
        Swizzle::None => 0u64,
        Swizzle::B128 => 1,
        Swizzle::B64 => 2,
        Swizzle::B32 => 3,
    };
    field(d.start, 0)
        | field(d.lbo, 16)
        | field(d.sbo, 32)
        | ((d.base_offset & 7) << 49)
        | (mode << 62)
}

/// The XOR pattern of `swizzle` applied to the byte address `addr` with `base_offset`.
pub fn swizzle_addr(swizzle: Swizzle, base_offset: u64, addr: u64) -> u64 {
    let b = swizzle.xor_bits();
    if b == 0 {
        return addr;
    }
    let mask = (1u64 << b) - 1;
    let row = (addr >> 7).wrapping_sub(base_offset) & mask;
    addr ^ (row << 4)
}

/// The location of element `(mn, k)` (row `mn` of A, or column `mn` of B; `k` along K) of a
/// matrix of `elem_bits`-bit elements: `(byte address, bit within the byte)`. The bit is
/// nonzero only for single-bit elements, which are numbered from the least significant bit.
pub fn element_addr(d: &MatrixDesc, major: Major, elem_bits: u32, mn: u32, k: u32) -> (u64, u32) {
    let (addr, bit) = unswizzled_addr(d, major, elem_bits, mn, k);
    (swizzle_addr(d.swizzle, d.base_offset, addr), bit)
}

/// [`element_addr`] before the swizzle XOR: the canonical layout's linear byte address and bit.
/// tcgen05's descriptor reuses it with its own XOR patterns.
pub fn unswizzled_addr(
    d: &MatrixDesc,
    major: Major,
    elem_bits: u32,
    mn: u32,
    k: u32,
) -> (u64, u32) {
    let t = 128 / elem_bits; // elements per 16 bytes
    let (mn, k, t64) = (u64::from(mn), u64::from(k), u64::from(t));
    let bits = u64::from(elem_bits);
    let s = d.swizzle.bytes();
    // The offset in bits of the contiguous coordinate within its 16-byte column.
    let (off_bytes, in_bits) = match (major, d.swizzle) {
        (Major::K, Swizzle::None) => {
            let (r, i) = (mn % 8, mn / 8);
            let (c, j) = (k % t64, k / t64);
            (r * 16 + i * d.sbo + j * d.lbo, c * bits)
        }
        (Major::K, _) => {
            let (r, i) = (mn % 8, mn / 8);
            let (c, j) = (k % t64, k / t64);
            (r * s + i * d.sbo + j * 16, c * bits)
        }
        (Major::Mn, Swizzle::None) => {
            let (c, i) = (mn % t64, mn / t64);
            let (r, j) = (k % 8, k / 8);
            (i * d.sbo + r * 16 + j * d.lbo, c * bits)
        }
        (Major::Mn, _) => {
            let per = s / 16;
            let (c, u, i) = (mn % t64, (mn / t64) % per, mn / t64 / per);
            let (r, j) = (k % 8, k / 8);
            (u * 16 + i * d.lbo + r * s + j * d.sbo, c * bits)
        }
    };
    (d.start + off_bytes + in_bits / 8, (in_bits % 8) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_decode_as_the_isa_lays_them_out() {
        let d = decode((3u64 << 62) | (5 << 49) | (0x20 << 32) | (0x10 << 16) | 0x40);
        assert_eq!(d.start, 0x400);
        assert_eq!(d.lbo, 0x100);
        assert_eq!(d.sbo, 0x200);
        assert_eq!(d.base_offset, 5);
        assert_eq!(d.swizzle, Swizzle::B32);
        assert_eq!(decode(1 << 62).swizzle, Swizzle::B128);
        assert_eq!(decode(2 << 62).swizzle, Swizzle::B64);
        assert_eq!(decode(encode(&d)), d);
    }

    /// The ISA's example "K-major, no-swizzling, tf32": `((8,2),(4,4)):((4,32),(1,64))` in
    /// elements, with LBO = 64·4 and SBO = 32·4 bytes.
    #[test]
    fn k_major_interleave_tf32_example() {
        let d = MatrixDesc {
            start: 0,
            lbo: 256,
            sbo: 128,
            base_offset: 0,
            swizzle: Swizzle::None,
        };
        for m in 0..16u32 {
            for k in 0..8u32 {
                let want = (m % 8) * 4 + (m / 8) * 32 + (k % 4) + (k / 4) * 64;
                assert_eq!(
                    element_addr(&d, Major::K, 32, m, k),
                    (u64::from(want) * 4, 0)
                );
            }
        }
    }

    /// The ISA's example "MN-major, 64B swizzling, bf16": `((8,4,2),(8,2)):((1,8,256),(32,512))`
    /// with LBO = 256·2, SBO = 512·2, then `Swizzle<2,4,3>`.
    #[test]
    fn mn_major_64b_bf16_example() {
        let d = MatrixDesc {
            start: 0,
            lbo: 512,
            sbo: 1024,
            base_offset: 0,
            swizzle: Swizzle::B64,
        };
        for mn in 0..64u32 {
            for k in 0..16u32 {
                let e =
                    (mn % 8) + ((mn / 8) % 4) * 8 + (mn / 32) * 256 + (k % 8) * 32 + (k / 8) * 512;
                let byte = u64::from(e) * 2;
                let sw = byte ^ (((byte >> 7) & 3) << 4);
                assert_eq!(element_addr(&d, Major::Mn, 16, mn, k), (sw, 0));
            }
        }
    }

    #[test]
    fn swizzle_128b_permutes_16_byte_chunks_within_a_row() {
        for row in 0..8u64 {
            let mut seen = [false; 8];
            for chunk in 0..8u64 {
                let a = swizzle_addr(Swizzle::B128, 0, 1024 + row * 128 + chunk * 16);
                assert_eq!(a / 128, 8 + row);
                assert_eq!(a % 16, 0);
                assert_eq!((a % 128) / 16, chunk ^ row);
                seen[((a % 128) / 16) as usize] = true;
            }
            assert!(seen.iter().all(|s| *s));
        }
        // A pattern that starts 3 rows into a 1024-byte block, described by base offset 3,
        // swizzles like an aligned one.
        for row in 0..8u64 {
            let a = swizzle_addr(Swizzle::B128, 3, 384 + row * 128 + 16);
            assert_eq!((a % 128) / 16, 1 ^ row);
        }
    }

    #[test]
    fn single_bit_elements_are_numbered_from_the_low_bit() {
        let d = MatrixDesc {
            start: 0,
            lbo: 128,
            sbo: 256,
            base_offset: 0,
            swizzle: Swizzle::None,
        };
        assert_eq!(element_addr(&d, Major::K, 1, 0, 9), (1, 1));
        assert_eq!(element_addr(&d, Major::K, 1, 1, 128), (128 + 16, 0));
    }
}
