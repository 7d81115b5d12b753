//! Float comparisons (`setp`, `set` with ordered and unordered operators), `min`/`max` with
//! PTX's NaN and signed-zero rules, `testp` and `copysign`.
//!
//! `min`/`max`: if exactly one input is NaN the other is returned; if both are, the canonical
//! NaN; `-0.0` is smaller than `+0.0`. With `.NaN`, any NaN input gives the canonical NaN.
//! With `.xorsign.abs`, the result's magnitude is min/max of the magnitudes and its sign the
//! XOR of the input signs.

use super::float::{ftz32, NAN32, NAN64};
use crate::ir::{CmpOp, TestpClass};

/// Compares two floats (already widened to f64 exactly) with a PTX comparison.
#[inline]
pub fn fcmp(cmp: CmpOp, a: f64, b: f64) -> bool {
    use CmpOp as C;
    let unordered = a.is_nan() || b.is_nan();
    match cmp {
        C::Eq => !unordered && a == b,
        C::Ne => !unordered && a != b,
        C::Lt | C::Lo => !unordered && a < b,
        C::Le | C::Ls => !unordered && a <= b,
        C::Gt | C::Hi => !unordered && a > b,
        C::Ge | C::Hs => !unordered && a >= b,
        C::Equ => unordered || a == b,
        C::Neu => unordered || a != b,
        C::Ltu => unordered || a < b,
        C::Leu => unordered || a <= b,
        C::Gtu => unordered || a > b,
        C::Geu => unordered || a >= b,
        C::Num => !unordered,
        C::Nan => unordered,
    }
}

/// `setp`/`set` on f32 operands, with `.ftz`.
#[inline]
pub fn fcmp32(cmp: CmpOp, a: f32, b: f32, ftz: bool) -> bool {
    let (a, b) = if ftz { (ftz32(a), ftz32(b)) } else { (a, b) };
    fcmp(cmp, f64::from(a), f64::from(b))
}

/// Options of `min`/`max`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MinMaxMode {
    /// `.ftz`
    pub ftz: bool,
    /// `.NaN`
    pub nan: bool,
    /// `.xorsign.abs`
    pub xorsign_abs: bool,
}

fn pick(a: f64, b: f64, max: bool) -> f64 {
    if a == b {
        // Signed zeros: -0 < +0.
        if a == 0.0 {
            let neg = if max {
                a.is_sign_negative() && b.is_sign_negative()
            } else {
                a.is_sign_negative() || b.is_sign_negative()
            };
            return if neg { -0.0 } else { 0.0 };
        }
        return a;
    }
    if (a < b) != max {
        a
    } else {
        b
    }
}

/// `min`/`max` on values widened exactly to f64; returns the result (NaN is canonical by the
/// caller's narrowing).
fn minmax(a: f64, b: f64, max: bool, nan: bool, xorsign_abs: bool) -> f64 {
    if a.is_nan() || b.is_nan() {
        if nan || (a.is_nan() && b.is_nan()) {
            return f64::NAN;
        }
        let other = if a.is_nan() { b } else { a };
        if xorsign_abs {
            return other.abs()
                * if a.is_sign_negative() != b.is_sign_negative() {
                    -1.0
                } else {
                    1.0
                };
        }
        return other;
    }
    if xorsign_abs {
        let r = pick(a.abs(), b.abs(), max);
        return if a.is_sign_negative() != b.is_sign_negative() {
            -r
        } else {
            r
        };
    }
    pick(a, b, max)
}

/// `min.f32`/`max.f32`.
pub fn minmax32(a: f32, b: f32, max: bool, m: MinMaxMode) -> f32 {
    let (a, b) = if m.ftz { (ftz32(a), ftz32(b)) } else { (a, b) };
    let r = minmax(f64::from(a), f64::from(b), max, m.nan, m.xorsign_abs) as f32;
    if r.is_nan() {
        // Two NaN operands give the canonical NaN too (an H200, difftest 2026-11-26); the
        // same register twice is folded by ptxas to a move (see `exec/step/float_fn.rs`).
        f32::from_bits(NAN32)
    } else if m.ftz {
        ftz32(r)
    } else {
        r
    }
}

/// `min.f64`/`max.f64`.
pub fn minmax64(a: f64, b: f64, max: bool, m: MinMaxMode) -> f64 {
    let r = minmax(a, b, max, m.nan, m.xorsign_abs);
    if r.is_nan() {
        f64::from_bits(NAN64)
    } else {
        r
    }
}

/// `testp.class` on a value widened exactly to f64, with `is_sub` telling whether it was
/// subnormal in its own format.
pub fn testp(class: TestpClass, x: f64, is_sub: bool) -> bool {
    match class {
        TestpClass::Finite => x.is_finite(),
        TestpClass::Infinite => x.is_infinite(),
        TestpClass::Number => !x.is_nan(),
        TestpClass::NotANumber => x.is_nan(),
        TestpClass::Normal => x.is_finite() && x != 0.0 && !is_sub,
        TestpClass::Subnormal => is_sub,
    }
}

/// `copysign.f32 d, a, b`: the magnitude of `b` with the sign of `a`.
pub fn copysign32(a: f32, b: f32) -> f32 {
    f32::from_bits((b.to_bits() & 0x7FFF_FFFF) | (a.to_bits() & 0x8000_0000))
}

/// `copysign.f64 d, a, b`: the magnitude of `b` with the sign of `a`.
pub fn copysign64(a: f64, b: f64) -> f64 {
    f64::from_bits((b.to_bits() & !(1 << 63)) | (a.to_bits() & (1 << 63)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordered_and_unordered() {
        let n = f64::NAN;
        assert!(!fcmp(CmpOp::Eq, n, n) && fcmp(CmpOp::Equ, n, 1.0));
        assert!(!fcmp(CmpOp::Lt, n, 1.0) && fcmp(CmpOp::Ltu, n, 1.0));
        assert!(!fcmp(CmpOp::Ne, n, 1.0) && fcmp(CmpOp::Neu, n, 1.0));
        assert!(fcmp(CmpOp::Num, 1.0, 2.0) && !fcmp(CmpOp::Num, 1.0, n));
        assert!(fcmp(CmpOp::Nan, n, 2.0));
        assert!(fcmp(CmpOp::Eq, 0.0, -0.0));
        assert!(fcmp32(CmpOp::Eq, f32::from_bits(1), 0.0, true));
        assert!(!fcmp32(CmpOp::Eq, f32::from_bits(1), 0.0, false));
    }

    #[test]
    fn min_max_rules() {
        let d = MinMaxMode::default();
        assert_eq!(minmax32(f32::NAN, 2.0, false, d), 2.0);
        assert_eq!(minmax32(3.0, f32::NAN, true, d), 3.0);
        assert_eq!(
            minmax32(
                f32::from_bits(0x7FC0_0000),
                f32::from_bits(0x7FC0_0000),
                false,
                d
            )
            .to_bits(),
            NAN32,
            "two NaNs: the canonical NaN (as an H200 does)"
        );
        let nan = MinMaxMode { nan: true, ..d };
        assert_eq!(minmax32(f32::NAN, 2.0, false, nan).to_bits(), NAN32);
        assert_eq!(minmax32(-0.0, 0.0, false, d).to_bits(), 0x8000_0000);
        assert_eq!(minmax32(-0.0, 0.0, true, d).to_bits(), 0);
        let xs = MinMaxMode {
            xorsign_abs: true,
            ..d
        };
        assert_eq!(minmax32(-3.0, 2.0, false, xs), -2.0);
        assert_eq!(minmax32(-3.0, -2.0, true, xs), 3.0);
        assert_eq!(minmax64(1.0, f64::NAN, false, d), 1.0);
    }

    #[test]
    fn classes_and_copysign() {
        assert!(testp(TestpClass::Subnormal, 1e-40, true));
        assert!(!testp(TestpClass::Normal, 1e-40, true));
        assert!(testp(TestpClass::Normal, 1.0, false));
        assert!(!testp(TestpClass::Normal, 0.0, false));
        assert!(testp(TestpClass::Infinite, f64::NEG_INFINITY, false));
        assert!(testp(TestpClass::NotANumber, f64::NAN, false));
        assert_eq!(copysign32(-1.0, 2.0), -2.0);
        assert_eq!(copysign64(1.0, -2.0), 2.0);
    }
}
