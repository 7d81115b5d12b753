//! Where `tcgen05.cp` puts each row of its source in Tensor Memory, and the decompressions
//! `.b8x16.b6x16_p32` and `.b8x16.b4x16_p64` (PTX ISA "tcgen05.cp", "Data Movement Shape",
//! "Optional Decompression").
//!
//! The source is `rows` rows of `words` 32-bit words (a K-major matrix the shared-memory
//! descriptor describes, its rows the M/N dimension); word `w` of row `r` goes to column
//! `C0 + w` of every lane [`dest_lanes`] gives (relative to the lane of `taddr`):
//!
//! | shape | lanes of row `r` |
//! |---|---|
//! | `.128x256b`, `.128x128b` | `r` |
//! | `.4x256b` | `32·r` (the first lane of each 32-lane sub-partition) |
//! | `.64x128b.warpx2::02_13` | `r` and `r + 64` (warps 0 and 2 get rows 0–31, warps 1 and 3 rows 32–63) |
//! | `.64x128b.warpx2::01_23` | `64·(r/32) + r%32` and that `+ 32` (warps 0 and 1 get rows 0–31, warps 2 and 3 rows 32–63) |
//! | `.32x128b.warpx4` | `r`, `r + 32`, `r + 64`, `r + 96` |
//!
//! These are the PTX ISA's warp pairs, and agree with the `ValID` layouts of CUTLASS's
//! `Copy_Traits<SM100_UTCCP_*>` (`cute/atom/copy_traits_sm100.hpp`); not compared with
//! hardware.
//!
//! Decompression works on each 16-byte chunk of a source row: the chunk holds 16 packed
//! elements (element `i` at bits `[b·i, b·i + b)` of the little-endian chunk, `b` = 6 or 4)
//! followed by padding, and becomes 16 bytes, element `i` in byte `i`. Within its byte a
//! six-bit element occupies bits 5–0 and a four-bit one bits 5–2 (so an e2m1 value reads as
//! the e2m3 value of the same number), the form in which the sm_100 `kind::f8f6f4` MMA reads
//! narrow elements from 8-bit containers (CUTLASS documents the same placement for sm_120's
//! `mma.kind::f8f6f4`). The ISA gives this placement in figures only; ptxemu's reading of
//! them is not compared with hardware. The padding bytes are ignored. `ldmatrix .b8x16` places
//! a four-bit element in bits 3–0 instead, as CUTLASS documents for ldmatrix; why the two differ
//! is set out in [`super::matrix_unpack`].

use crate::ir::{CpDecompress, CpMulticast, CpShape};
use smallvec::{smallvec, SmallVec};

/// The Tensor Memory lanes, relative to the lane of `taddr`, that receive source row `row`.
pub fn dest_lanes(shape: CpShape, multicast: Option<CpMulticast>, row: u32) -> SmallVec<[u32; 4]> {
    match (shape, multicast) {
        (CpShape::S4x256b, _) => smallvec![32 * row],
        (CpShape::S64x128b, Some(CpMulticast::Warpx2_01_23)) => {
            let base = 64 * (row / 32) + row % 32;
            smallvec![base, base + 32]
        }
        (CpShape::S64x128b, _) => smallvec![row, row + 64],
        (CpShape::S32x128b, _) => smallvec![row, row + 32, row + 64, row + 96],
        (CpShape::S128x256b | CpShape::S128x128b, _) => smallvec![row],
    }
}

/// Every (lane, column) offset the copy writes, relative to `taddr`, with its (row, word).
pub fn footprint(
    shape: CpShape,
    multicast: Option<CpMulticast>,
) -> impl Iterator<Item = ((u32, u32), (u32, u32))> {
    (0..shape.rows()).flat_map(move |r| {
        dest_lanes(shape, multicast, r)
            .into_iter()
            .flat_map(move |l| (0..shape.words()).map(move |w| ((l, w), (r, w))))
    })
}

/// One 16-byte source chunk decompressed into 16 bytes (see the module header).
pub fn decompress(d: CpDecompress, chunk: [u8; 16]) -> [u8; 16] {
    let packed = u128::from_le_bytes(chunk);
    let (bits, shift) = match d {
        CpDecompress::B6x16P32 => (6, 0),
        CpDecompress::B4x16P64 => (4, 2),
    };
    let mask = (1u128 << bits) - 1;
    std::array::from_fn(|i| (((packed >> (bits * i)) & mask) as u8) << shift)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_shape_covers_its_lanes_once_per_column() {
        let cases = [
            (CpShape::S128x256b, None, 128, 8),
            (CpShape::S128x128b, None, 128, 4),
            (CpShape::S4x256b, None, 4, 8),
            (CpShape::S64x128b, Some(CpMulticast::Warpx2_02_13), 128, 4),
            (CpShape::S64x128b, Some(CpMulticast::Warpx2_01_23), 128, 4),
            (CpShape::S32x128b, Some(CpMulticast::Warpx4), 128, 4),
        ];
        for (shape, mc, lanes, words) in cases {
            let cells: Vec<_> = footprint(shape, mc).map(|(cell, _)| cell).collect();
            let set: HashSet<_> = cells.iter().copied().collect();
            assert_eq!(set.len(), cells.len(), "{shape:?} writes a cell twice");
            assert_eq!(cells.len() as u32, lanes * words, "{shape:?}");
            assert!(cells.iter().all(|&(l, w)| l < 128 && w < words));
        }
    }

    #[test]
    fn warp_pairs_are_the_isas() {
        // .warpx2::02_13: warps 0 and 2 (lanes 0-31, 64-95) share rows 0-31.
        assert_eq!(
            dest_lanes(CpShape::S64x128b, Some(CpMulticast::Warpx2_02_13), 5).to_vec(),
            vec![5, 69]
        );
        assert_eq!(
            dest_lanes(CpShape::S64x128b, Some(CpMulticast::Warpx2_02_13), 40).to_vec(),
            vec![40, 104]
        );
        // .warpx2::01_23: warps 0 and 1 share rows 0-31, warps 2 and 3 rows 32-63.
        assert_eq!(
            dest_lanes(CpShape::S64x128b, Some(CpMulticast::Warpx2_01_23), 5).to_vec(),
            vec![5, 37]
        );
        assert_eq!(
            dest_lanes(CpShape::S64x128b, Some(CpMulticast::Warpx2_01_23), 40).to_vec(),
            vec![72, 104]
        );
        assert_eq!(
            dest_lanes(CpShape::S32x128b, Some(CpMulticast::Warpx4), 3).to_vec(),
            vec![3, 35, 67, 99]
        );
        assert_eq!(dest_lanes(CpShape::S4x256b, None, 3).to_vec(), vec![96]);
    }

    #[test]
    fn decompression_places_elements_in_bytes() {
        // Sixteen four-bit elements 0..15, packed low nibble first, then 8 bytes of padding.
        let mut c = [0xEEu8; 16];
        for (i, b) in c.iter_mut().take(8).enumerate() {
            *b = (2 * i as u8) | ((2 * i as u8 + 1) << 4);
        }
        let out = decompress(CpDecompress::B4x16P64, c);
        for (i, b) in out.iter().enumerate() {
            assert_eq!(*b, (i as u8) << 2, "element {i}");
        }
        // Sixteen six-bit elements 63 - i, then 4 bytes of padding.
        let mut packed: u128 = 0;
        for i in 0..16u32 {
            packed |= u128::from(63 - i) << (6 * i);
        }
        let mut c = packed.to_le_bytes();
        c[12..].fill(0xFF);
        let out = decompress(CpDecompress::B6x16P32, c);
        for (i, b) in out.iter().enumerate() {
            assert_eq!(u32::from(*b), 63 - i as u32, "element {i}");
        }
    }
}
