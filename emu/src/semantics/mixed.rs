//! Mixed-precision arithmetic: `add{.rnd}{.sat}.f32.atype d, a, c`, `sub` alike and
//! `fma.rnd{.sat}.f32.abtype d, a, b, c` with `.atype`/`.abtype` `.f16` or `.bf16` (PTX ISA
//! "Mixed Precision Floating-Point Instructions", PTX ISA 8.6, sm_100).
//!
//! The narrow operands are converted to `.f32`, which is exact for every `.f16` and `.bf16`
//! value (subnormals included), and the `.f32` operation follows with the instruction's
//! rounding: one rounding for `add`/`sub`, and one for `fma`, whose product and sum are exact
//! before it. So each result is that of [`crate::semantics::float`]'s `.f32` arithmetic on the
//! widened operands, with its NaN and `.sat` rules: a NaN result is the canonical `0x7FFFFFFF`,
//! and `.sat` clamps to [0.0, 1.0] with NaN to +0.0. Subnormal inputs and results are kept:
//! these forms have no `.ftz`.
//!
//! Deliberate deviations: none known. The NaN bit pattern follows the `.f32` arithmetic's,
//! established on an H100; these sm_100 forms have not been run on a GPU here.

use super::float::{self as sf, BinOp, Mode};
use super::half::{to_f32, HalfKind};
use crate::ir::FloatRounding;

/// The modifiers of a mixed-precision instruction as an `.f32` mode (never `.ftz`).
pub fn mode(rnd: FloatRounding, sat: bool) -> Mode {
    Mode {
        rnd,
        ftz: false,
        sat,
    }
}

/// `add`/`sub.f32.{f16,bf16} d, a, c`: `f32(a) op c`, rounded once. `op` is `Add` or `Sub`.
pub fn add_sub(op: BinOp, a: u16, c: f32, k: HalfKind, rnd: FloatRounding, sat: bool) -> f32 {
    sf::bin32(op, to_f32(a, k), c, mode(rnd, sat))
}

/// `fma.rnd.f32.{f16,bf16} d, a, b, c`: `f32(a) * f32(b) + c`, rounded once.
pub fn fma(a: u16, b: u16, c: f32, k: HalfKind, rnd: FloatRounding, sat: bool) -> f32 {
    sf::fma32(to_f32(a, k), to_f32(b, k), c, mode(rnd, sat))
}

#[cfg(test)]
mod tests {
    use super::*;
    use FloatRounding::{Rm, Rn, Rp, Rz};
    use HalfKind::{BF16, F16};

    const F16_ONE: u16 = 0x3C00;
    const F16_MIN_SUB: u16 = 0x0001; // 2^-24
    const F16_MAX: u16 = 0x7BFF; // 65504
    const BF16_ONE: u16 = 0x3F80;

    #[test]
    fn widening_is_exact() {
        assert_eq!(to_f32(F16_MIN_SUB, F16), 2f32.powi(-24));
        assert_eq!(to_f32(0x8001, F16), -(2f32.powi(-24)));
        assert_eq!(to_f32(F16_MAX, F16), 65504.0);
        assert_eq!(to_f32(0x7C00, F16), f32::INFINITY);
        assert!(to_f32(0x7E00, F16).is_nan());
        // bf16 is the top half of an f32: its smallest subnormal is f32's 2^-133.
        assert_eq!(to_f32(0x0001, BF16).to_bits(), 0x0001_0000);
        assert_eq!(to_f32(BF16_ONE, BF16), 1.0);
    }

    #[test]
    fn add_rounds_once_in_each_mode() {
        // 1 + 2^-30: not representable; the four roundings pick either neighbour.
        let c = 2f32.powi(-30);
        assert_eq!(add_sub(BinOp::Add, F16_ONE, c, F16, Rn, false), 1.0);
        assert_eq!(add_sub(BinOp::Add, F16_ONE, c, F16, Rz, false), 1.0);
        assert_eq!(add_sub(BinOp::Add, F16_ONE, c, F16, Rm, false), 1.0);
        assert_eq!(
            add_sub(BinOp::Add, F16_ONE, c, F16, Rp, false).to_bits(),
            0x3F80_0001
        );
        assert_eq!(
            add_sub(BinOp::Sub, F16_ONE, c, F16, Rz, false).to_bits(),
            0x3F7F_FFFF
        );
        assert_eq!(add_sub(BinOp::Sub, F16_ONE, c, F16, Rp, false), 1.0);
    }

    #[test]
    fn subnormal_halves_are_not_flushed() {
        assert_eq!(
            add_sub(BinOp::Add, F16_MIN_SUB, 0.0, F16, Rn, false),
            2f32.powi(-24)
        );
        // bf16's subnormal 2^-133 times 2^-133 underflows below f32's subnormals: +0 at .rn,
        // the smallest subnormal at .rp.
        assert_eq!(fma(0x0001, 0x0001, 0.0, BF16, Rn, false).to_bits(), 0);
        assert_eq!(fma(0x0001, 0x0001, 0.0, BF16, Rp, false).to_bits(), 1);
    }

    #[test]
    fn fma_rounds_once() {
        // (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20, exact in f32; minus 1 leaves 2^-9 + 2^-20 exactly.
        let a = 0x3C01; // 1 + 2^-10
        assert_eq!(
            fma(a, a, -1.0, F16, Rn, false),
            2f32.powi(-9) + 2f32.powi(-20)
        );
        // bf16 2^64 * 2^64 = 2^128 is past f32's range; fused with -2^127 it comes back to
        // 2^127 exactly (a rounded product would be +inf, and so the sum).
        let big = 0x5F80; // 2^64
        assert_eq!(
            fma(big, big, -(2f32.powi(127)), BF16, Rn, false),
            2f32.powi(127)
        );
        assert_eq!(fma(big, big, 0.0, BF16, Rz, false), f32::MAX);
        assert_eq!(fma(big, big, 0.0, BF16, Rn, false), f32::INFINITY);
    }

    #[test]
    fn sat_and_nan() {
        assert_eq!(add_sub(BinOp::Add, F16_ONE, 0.5, F16, Rn, true), 1.0);
        assert_eq!(
            add_sub(BinOp::Sub, F16_ONE, 1.5, F16, Rn, true).to_bits(),
            0
        );
        // NaN in a narrow operand: canonical NaN, and +0 under .sat.
        assert_eq!(
            add_sub(BinOp::Add, 0x7E00, 1.0, F16, Rn, false).to_bits(),
            sf::NAN32
        );
        assert_eq!(
            add_sub(BinOp::Add, 0x7FC1, 1.0, BF16, Rz, true).to_bits(),
            0
        );
        // inf - inf
        assert_eq!(
            add_sub(BinOp::Sub, 0x7C00, f32::INFINITY, F16, Rn, false).to_bits(),
            sf::NAN32
        );
        assert_eq!(
            fma(0x0000, 0x7C00, 1.0, F16, Rn, false).to_bits(),
            sf::NAN32
        );
        // -0 clamps to +0.
        assert_eq!(
            add_sub(BinOp::Add, 0x8000, -0.0, F16, Rn, true).to_bits(),
            0
        );
    }
}
