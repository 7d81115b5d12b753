//! The source formats of the sm_100a matrix loads `ldmatrix ... .b8x16.b6x16_p32` and
//! `.b8x16.b4x16_p64`: one 16-byte row of shared memory becomes sixteen 8-bit elements.
//!
//! Choices, with their sources:
//! 1. **Where the packed data lie in the row.** The sixteen packed elements come first and the
//!    padding last: a `.b6x16_p32` row is 12 bytes of data then 4 bytes of padding, a
//!    `.b4x16_p64` row 8 bytes of data then 8 of padding. The PTX ISA says so in words in
//!    "tcgen05.cp" → "Optional Decompression" ("16 elements of 4-bits each followed by 8 bytes of
//!    padding", "16 elements of 6-bits each followed by 4 bytes of padding"), the section the
//!    ldmatrix description refers to for these formats. The padding is ignored.
//! 2. **Element order.** Element `i` is bits `[b·i, b·i + b)` of the row read as a little-endian
//!    128-bit number (`b` = 6 or 4), the usual sub-byte packing (two e2m1 per byte, low nibble
//!    first, as CUTLASS's `float_e2m1_t` arrays store them). The ISA shows this only in figures.
//! 3. **Where the element lands in its byte: the low bits** (6-bit in bits 5–0, 4-bit in bits
//!    3–0), the upper bits zero. CUTLASS states it for ldmatrix in
//!    `include/cute/atom/mma_traits_sm120.hpp` ("ld.matrix b4x16_p64 places FP4 data at the first
//!    four bits in each eight-bit container"; an e2m1 operand of `mma .kind::f8f6f4`, which
//!    wants bits 5–2, is shifted left by two after the load, and "the same transformation is
//!    NOT needed for FP6"), and cubecl's `LdMatrixForm` documentation says the same.
//!
//! This differs from ptxemu's `tcgen05.cp` decompression ([`super::tcgen05_cp::decompress`]),
//! which places a 4-bit element in bits 5–2: there the destination is Tensor Memory, read only by
//! `tcgen05.mma .kind::f8f6f4`, whose e2m1 containers hold the value in bits 5–2. The ISA refers
//! ldmatrix to the same decompression figures, so at most one of the two placements can agree
//! with the figures for 4-bit data; the 6-bit placement (bits 5–0) is the same in both. Neither
//! has been compared with hardware (`ptxemu difftest` on a GPU would settle both).

use crate::ir::MatrixFormat;

/// Bits per packed element of a `.b8x16` source format, `None` for an unpacked format.
pub fn packed_bits(format: MatrixFormat) -> Option<u32> {
    match format {
        MatrixFormat::B6x16P32 => Some(6),
        MatrixFormat::B4x16P64 => Some(4),
        MatrixFormat::B16 | MatrixFormat::B8 => None,
    }
}

/// One 16-byte shared-memory row in `format` as the sixteen bytes `ldmatrix` loads from it:
/// the packed elements widened into the low bits of a byte each (see the module header). An
/// unpacked format (`.b8`, `.b16`) is returned unchanged.
pub fn unpack_row(format: MatrixFormat, row: [u8; 16]) -> [u8; 16] {
    let Some(bits) = packed_bits(format) else {
        return row;
    };
    let packed = u128::from_le_bytes(row);
    let mask = (1u128 << bits) - 1;
    std::array::from_fn(|i| ((packed >> (bits as usize * i)) & mask) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row holding `codes` packed `bits` wide from bit 0, the rest (padding) set to `pad`.
    fn pack(codes: &[u8; 16], bits: u32, pad: u8) -> [u8; 16] {
        let mut v: u128 = 0;
        for (i, &c) in codes.iter().enumerate() {
            v |= u128::from(c) << (bits as usize * i);
        }
        let mut row = v.to_le_bytes();
        let data = (16 * bits / 8) as usize;
        row[data..].fill(pad);
        row
    }

    #[test]
    fn every_six_bit_code_in_every_position() {
        for start in 0..64u8 {
            let codes: [u8; 16] = std::array::from_fn(|i| (start + 5 * i as u8) % 64);
            for pad in [0x00, 0xFF, 0xA5] {
                let out = unpack_row(MatrixFormat::B6x16P32, pack(&codes, 6, pad));
                assert_eq!(out, codes, "start {start} pad {pad:#x}");
            }
        }
    }

    #[test]
    fn every_four_bit_code_in_every_position() {
        for start in 0..16u8 {
            let codes: [u8; 16] = std::array::from_fn(|i| (start + 3 * i as u8) % 16);
            for pad in [0x00, 0xFF, 0x5A] {
                let out = unpack_row(MatrixFormat::B4x16P64, pack(&codes, 4, pad));
                assert_eq!(out, codes, "start {start} pad {pad:#x}");
            }
        }
    }

    #[test]
    fn hand_worked_rows() {
        // Low nibble first: byte 0x21 holds elements 1 (low) and 2 (high).
        let mut row = [0u8; 16];
        row[0] = 0x21;
        row[7] = 0xF0;
        let out = unpack_row(MatrixFormat::B4x16P64, row);
        assert_eq!(out[..3], [1, 2, 0]);
        assert_eq!(out[14..], [0, 15]);
        // Six-bit: elements 1, 2, 3 are 0b000011_000010_000001 = bytes 0x81 0x30 0x00.
        let mut row = [0xEEu8; 16];
        row[..12].fill(0);
        row[0] = 0x81;
        row[1] = 0x30;
        let out = unpack_row(MatrixFormat::B6x16P32, row);
        assert_eq!(out[..4], [1, 2, 3, 0]);
        // The top element is bits 90-95: byte 11's upper six bits.
        let mut row = [0u8; 16];
        row[11] = 0xFC;
        row[12..].fill(0xFF);
        assert_eq!(unpack_row(MatrixFormat::B6x16P32, row)[15], 63);
        // Unpacked formats pass through.
        let row: [u8; 16] = std::array::from_fn(|i| i as u8 * 17);
        assert_eq!(unpack_row(MatrixFormat::B8, row), row);
    }
}
