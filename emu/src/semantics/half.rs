//! Half-precision arithmetic: `.f16`, `.bf16` and the packed `.f16x2`, `.bf16x2` forms of
//! `add sub mul fma neg abs min max` with `.rn`, `.ftz` (`.f16` only), `.sat` and `.relu`
//! (PTX ISA "Half Precision Floating-Point Instructions").
//!
//! Computed by `rustc_apfloat` in the 16-bit formats themselves, so each result is rounded
//! once. Packed forms apply the scalar operation to the low and high halves independently.
//!
//! Deliberate deviations:
//! 1. NaN results are the canonical `0x7FFF`.

use rustc_apfloat::ieee::{BFloat, Half};
use rustc_apfloat::{Float, FloatConvert, Round};

/// Which 16-bit format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HalfKind {
    /// IEEE binary16.
    F16,
    /// bfloat16.
    BF16,
}

/// A half-precision operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HalfOp {
    /// `add`
    Add,
    /// `sub`
    Sub,
    /// `mul`
    Mul,
    /// `fma` (uses the third operand)
    Fma,
    /// `min`
    Min,
    /// `max`
    Max,
    /// `neg`
    Neg,
    /// `abs`
    Abs,
}

/// Modifiers of a half instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HalfMode {
    /// `.ftz`
    pub ftz: bool,
    /// `.sat`
    pub sat: bool,
    /// `.relu`
    pub relu: bool,
    /// `.NaN` (min/max)
    pub nan: bool,
}

const NAN16: u16 = 0x7FFF;

fn is_nan(b: u16) -> bool {
    b & 0x7FFF > 0x7C00
}

fn is_nan_bf(b: u16) -> bool {
    b & 0x7FFF > 0x7F80
}

fn flush_f16(b: u16) -> u16 {
    if b & 0x7C00 == 0 {
        b & 0x8000
    } else {
        b
    }
}

fn calc<F: Float>(op: HalfOp, a: F, b: F, c: F) -> F {
    let r = Round::NearestTiesToEven;
    match op {
        HalfOp::Add => a.add_r(b, r).value,
        HalfOp::Sub => a.sub_r(b, r).value,
        HalfOp::Mul => a.mul_r(b, r).value,
        HalfOp::Fma => a.mul_add_r(b, c, r).value,
        HalfOp::Neg => -a,
        HalfOp::Abs => a.abs(),
        HalfOp::Min | HalfOp::Max => a,
    }
}

/// The `.f32` value of 16-bit float bits `b` of format `k`: exact, subnormals included (every
/// `.f16` and `.bf16` value is an `.f32` value); a NaN stays a NaN.
pub fn to_f32(b: u16, k: HalfKind) -> f32 {
    match k {
        HalfKind::BF16 => f32::from_bits(u32::from(b) << 16),
        HalfKind::F16 => {
            let mut lossy = false;
            let s: rustc_apfloat::ieee::Single =
                Half::from_bits(u128::from(b)).convert(&mut lossy).value;
            f32::from_bits(s.to_bits() as u32)
        }
    }
}

/// One 16-bit operation on raw bits.
pub fn op16(k: HalfKind, op: HalfOp, a: u16, b: u16, c: u16, m: HalfMode) -> u16 {
    let nan = |x: u16| match k {
        HalfKind::F16 => is_nan(x),
        HalfKind::BF16 => is_nan_bf(x),
    };
    let flush = |x: u16| {
        if m.ftz && k == HalfKind::F16 {
            flush_f16(x)
        } else {
            x
        }
    };
    let (a, b, c) = (flush(a), flush(b), flush(c));
    let r = match op {
        HalfOp::Min | HalfOp::Max => {
            let max = op == HalfOp::Max;
            if nan(a) || nan(b) {
                if m.nan || (nan(a) && nan(b)) {
                    NAN16
                } else if nan(a) {
                    b
                } else {
                    a
                }
            } else {
                let (x, y) = (to_f32(a, k), to_f32(b, k));
                if x == y {
                    let neg_a = a & 0x8000 != 0;
                    let neg_b = b & 0x8000 != 0;
                    let neg = if max { neg_a && neg_b } else { neg_a || neg_b };
                    if x == 0.0 {
                        if neg {
                            0x8000
                        } else {
                            0
                        }
                    } else {
                        a
                    }
                } else if (x < y) != max {
                    a
                } else {
                    b
                }
            }
        }
        _ => match k {
            HalfKind::F16 => {
                let f = |x: u16| Half::from_bits(u128::from(x));
                calc(op, f(a), f(b), f(c)).to_bits() as u16
            }
            HalfKind::BF16 => {
                let f = |x: u16| BFloat::from_bits(u128::from(x));
                calc(op, f(a), f(b), f(c)).to_bits() as u16
            }
        },
    };
    let r = if nan(r) { NAN16 } else { flush(r) };
    let r = if m.relu && r & 0x8000 != 0 && !nan(r) {
        0
    } else {
        r
    };
    if m.sat {
        if nan(r) || r & 0x8000 != 0 {
            0
        } else {
            let one = match k {
                HalfKind::F16 => 0x3C00,
                HalfKind::BF16 => 0x3F80,
            };
            if to_f32(r, k) > 1.0 {
                one
            } else {
                r
            }
        }
    } else {
        r
    }
}

/// A packed operation on two halves (`a`, `b`, `c` hold two 16-bit values each).
pub fn op16x2(k: HalfKind, op: HalfOp, a: u32, b: u32, c: u32, m: HalfMode) -> u32 {
    let lo = op16(k, op, a as u16, b as u16, c as u16, m);
    let hi = op16(
        k,
        op,
        (a >> 16) as u16,
        (b >> 16) as u16,
        (c >> 16) as u16,
        m,
    );
    (u32::from(hi) << 16) | u32::from(lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: u16 = 0x3C00;
    const TWO: u16 = 0x4000;
    const THREE: u16 = 0x4200;

    #[test]
    fn f16_arithmetic() {
        let d = HalfMode::default();
        assert_eq!(op16(HalfKind::F16, HalfOp::Add, ONE, TWO, 0, d), THREE);
        assert_eq!(op16(HalfKind::F16, HalfOp::Mul, TWO, THREE, 0, d), 0x4600);
        assert_eq!(op16(HalfKind::F16, HalfOp::Fma, TWO, THREE, ONE, d), 0x4700);
        assert_eq!(op16(HalfKind::F16, HalfOp::Neg, ONE, 0, 0, d), 0xBC00);
        // 2048 + 1 is not an f16 (ties to even stays 2048).
        assert_eq!(op16(HalfKind::F16, HalfOp::Add, 0x6800, ONE, 0, d), 0x6800);
        assert_eq!(op16(HalfKind::F16, HalfOp::Mul, 0x7C00, 0, 0, d), NAN16);
        let sat = HalfMode { sat: true, ..d };
        assert_eq!(op16(HalfKind::F16, HalfOp::Add, ONE, ONE, 0, sat), ONE);
        let relu = HalfMode { relu: true, ..d };
        assert_eq!(op16(HalfKind::F16, HalfOp::Fma, ONE, 0xBC00, 0, relu), 0);
        let ftz = HalfMode { ftz: true, ..d };
        assert_eq!(op16(HalfKind::F16, HalfOp::Add, 0x0001, 0, 0, ftz), 0);
        assert_eq!(op16(HalfKind::F16, HalfOp::Add, 0x0001, 0, 0, d), 0x0001);
    }

    #[test]
    fn bf16_and_packed() {
        let d = HalfMode::default();
        assert_eq!(
            op16(HalfKind::BF16, HalfOp::Add, 0x3F80, 0x4000, 0, d),
            0x4040
        );
        let a = (u32::from(TWO) << 16) | u32::from(ONE);
        let b = (u32::from(ONE) << 16) | u32::from(TWO);
        assert_eq!(
            op16x2(HalfKind::F16, HalfOp::Add, a, b, 0, d),
            (u32::from(THREE) << 16) | u32::from(THREE)
        );
        assert_eq!(
            op16x2(HalfKind::F16, HalfOp::Max, a, b, 0, d),
            (u32::from(TWO) << 16) | u32::from(TWO)
        );
        assert_eq!(op16(HalfKind::F16, HalfOp::Min, 0x7E00, ONE, 0, d), ONE);
    }
}
