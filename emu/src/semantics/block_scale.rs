//! Block scaling of `tcgen05.mma` (`.kind::mxf8f6f4`, `::mxf4`, `::mxf4nvf4` with
//! `.block_scale.scale_vec::1X/2X/4X`, PTX ISA "Block Scaling"): where the scale factors sit in
//! Tensor Memory, and the scaled dot product `D = C + Σ_k (a_k·sa_{k/blk})·(b_k·sb_{k/blk})`.
//!
//! | `.scale_vec` | kinds | factors per row (`SFA_N`) | block of K | scale format | SF_ID |
//! |---|---|---|---|---|---|
//! | `::1X` (`.block32`) | mxf8f6f4 | 1 | 32 | ue8m0 | byte 0–3 |
//! | `::2X` (`.block32`) | mxf4, mxf4nvf4 | 2 | 32 | ue8m0 | byte 0 or 2 (a half word) |
//! | `::4X` (`.block16`) | mxf4nvf4 | 4 | 16 | ue4m3 (or ue8m0) | 0 (the whole word) |
//!
//! Layout ([`sf_cell`]): the factors of row `m` of A (column `n` of B) sit in the 32-bit word
//! at column `m / 32` of the scale-factor address, lane `m % 32` of a 32-lane sub-partition,
//! factor `j` in byte `SF_ID + j`. The ISA requires the factors to be duplicated into all four
//! sub-partitions; ptxemu reads the copy in the sub-partition of the accumulator row being
//! computed (`partition`). This is the ISA's figures as ptxemu reads them (and as CUTLASS and
//! DeepGEMM fill them, with `tcgen05.cp.32x128b.warpx4`); not compared with hardware. K = 96
//! (`.block16`/`.block32` on sm_103) is not modelled.
//!
//! Every scaled element `a_k·sa` is exact in binary64 (at most 4 significant bits of element
//! times at most 4 of a ue4m3 scale, or a power of two), so [`scaled_dot`] scales the inputs
//! and hands them to [`super::mma::dot_f32`], whose accumulation model (block, fraction bits)
//! the caller chooses for the kind. A NaN scale (ue8m0 `0xFF`, ue4m3 `0x7F`) makes its block's
//! products NaN, and so the result.
//!
//! Tests: `block_scale_cases.txt`, 300 random cases from the independent Python model
//! `tests/fixtures/block_scale/gen.py` (layout, decoding, scaling and accumulation).

use super::mma::{dot_f32, AccModel};
use super::narrow_float::ScaleFormat;

/// `.scale_vec::NX`: how many scale factors each row of A (column of B) has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScaleVec {
    /// `::1X`: one factor per 32 elements of K (mxf8f6f4, K = 32)
    X1,
    /// `::2X`: two factors, one per 32 elements (mxf4, mxf4nvf4, K = 64)
    X2,
    /// `::4X`: four factors, one per 16 elements (mxf4nvf4, K = 64)
    X4,
}

impl ScaleVec {
    /// Factors per row of A (`SFA_N`) and per column of B.
    pub fn factors(self) -> u32 {
        match self {
            ScaleVec::X1 => 1,
            ScaleVec::X2 => 2,
            ScaleVec::X4 => 4,
        }
    }

    /// Elements of K one factor scales.
    pub fn block(self) -> u32 {
        match self {
            ScaleVec::X1 | ScaleVec::X2 => 32,
            ScaleVec::X4 => 16,
        }
    }

    /// Whether `sf_id` (the instruction descriptor's 2-bit scale-factor id) is allowed: a
    /// byte for `::1X`, a half word (0 or 2) for `::2X`, 0 for `::4X`.
    pub fn sf_id_ok(self, sf_id: u32) -> bool {
        match self {
            ScaleVec::X1 => sf_id < 4,
            ScaleVec::X2 => sf_id == 0 || sf_id == 2,
            ScaleVec::X4 => sf_id == 0,
        }
    }
}

/// Where factor `j` of row `mn` (row of A, or column of B) is: `(lane, column, byte)`, lane
/// and column relative to the scale-factor Tensor Memory address, `byte` the byte of the
/// 32-bit cell (0 = least significant), read from the copy in sub-partition `partition`
/// (0–3). `sf_id` must satisfy [`ScaleVec::sf_id_ok`] and `j < factors()`.
pub fn sf_cell(mn: u32, j: u32, vec: ScaleVec, sf_id: u32, partition: u32) -> (u32, u32, u32) {
    debug_assert!(vec.sf_id_ok(sf_id) && j < vec.factors());
    (32 * (partition % 4) + mn % 32, mn / 32, sf_id + j)
}

/// Byte `byte` of the cell value `word`.
pub fn cell_byte(word: u32, byte: u32) -> u8 {
    (word >> (8 * (byte % 4))) as u8
}

/// The decoded factors `j = 0..factors()` of row `mn`, given the cells `cell(lane, column)`.
pub fn factors(
    mut cell: impl FnMut(u32, u32) -> u32,
    mn: u32,
    vec: ScaleVec,
    fmt: ScaleFormat,
    sf_id: u32,
    partition: u32,
) -> Vec<f64> {
    (0..vec.factors())
        .map(|j| {
            let (lane, col, byte) = sf_cell(mn, j, vec, sf_id, partition);
            fmt.decode(cell_byte(cell(lane, col), byte))
        })
        .collect()
}

/// `c + Σ_k (a_k·sa[k / block])·(b_k·sb[k / block])` under `model`, for decoded elements `a`,
/// `b` (exact, from [`super::narrow_float`]) and decoded scale factors `sa`, `sb` of `block`
/// elements each.
pub fn scaled_dot(
    model: &AccModel,
    a: &[f64],
    b: &[f64],
    sa: &[f64],
    sb: &[f64],
    block: usize,
    c: f32,
) -> f32 {
    let scale = |v: &[f64], s: &[f64]| -> Vec<f64> {
        v.iter()
            .enumerate()
            .map(|(k, x)| x * s.get(k / block.max(1)).copied().unwrap_or(f64::NAN))
            .collect()
    };
    dot_f32(model, &scale(a, sa), &scale(b, sb), c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantics::narrow_float::ElemFormat;

    fn elem(name: &str) -> ElemFormat {
        match name {
            "e2m1" => ElemFormat::E2M1,
            "e2m3" => ElemFormat::E2M3,
            "e3m2" => ElemFormat::E3M2,
            "e4m3" => ElemFormat::E4M3,
            other => panic!("format {other}"),
        }
    }

    #[test]
    fn agrees_with_the_python_model() {
        let text = include_str!("block_scale_cases.txt");
        let hex = |s: &str| u32::from_str_radix(s, 16).expect("hex");
        let num = |s: &str| s.parse::<u32>().expect("number");
        let mut n = 0;
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = line.split('\t').collect();
            let (vec, fmt) = match f[0] {
                "1X" => (ScaleVec::X1, ScaleFormat::UE8M0),
                "2X" => (ScaleVec::X2, ScaleFormat::UE8M0),
                _ => (ScaleVec::X4, ScaleFormat::UE4M3),
            };
            let (fa, fb) = (elem(f[1]), elem(f[2]));
            let model = AccModel {
                block: num(f[4]) as usize,
                frac_bits: num(f[5]),
                extra_bits: 0,
                align: crate::semantics::mma::Align::Leading,
            };
            let (m, nn, sfa_id, sfb_id, q) =
                (num(f[6]), num(f[7]), num(f[8]), num(f[9]), num(f[10]));
            let codes = |s: &str, e: ElemFormat| -> Vec<f64> {
                s.split(',').map(|c| e.decode(num(c))).collect()
            };
            let (a, b) = (codes(f[11], fa), codes(f[12], fb));
            assert_eq!(a.len() as u32, num(f[3]));
            // The cell the Python layout model put each row's factors in.
            let cell_of = |lane: &str, col: &str, word: &str| {
                let (l, c, w) = (num(lane), num(col), hex(word));
                move |lane: u32, col: u32| {
                    assert_eq!((lane, col), (l, c), "{line}");
                    w
                }
            };
            let sa = factors(cell_of(f[13], f[14], f[15]), m, vec, fmt, sfa_id, q);
            let sb = factors(cell_of(f[16], f[17], f[18]), nn, vec, fmt, sfb_id, q);
            let c = f32::from_bits(hex(f[19]));
            let d = scaled_dot(&model, &a, &b, &sa, &sb, vec.block() as usize, c);
            assert_eq!(d.to_bits(), hex(f[20]), "{line}");
            n += 1;
        }
        assert_eq!(n, 300);
    }

    #[test]
    fn sf_ids_and_nan_scales() {
        assert!(ScaleVec::X1.sf_id_ok(3));
        assert!(!ScaleVec::X2.sf_id_ok(1));
        assert!(!ScaleVec::X4.sf_id_ok(2));
        assert_eq!(sf_cell(70, 1, ScaleVec::X2, 2, 3), (96 + 6, 2, 3));
        let model = AccModel {
            block: 32,
            frac_bits: 23,
            extra_bits: 0,
            align: crate::semantics::mma::Align::Leading,
        };
        let ones = vec![1.0; 32];
        let nan = ScaleFormat::UE8M0.decode(0xFF);
        assert!(scaled_dot(&model, &ones, &ones, &[nan], &[1.0], 32, 0.0).is_nan());
        assert_eq!(
            scaled_dot(&model, &ones, &ones, &[0.5], &[4.0], 32, 1.0),
            65.0
        );
    }
}
