//! The approximate instructions: `rcp/sqrt/rsqrt/div .approx`, `div.full`, `sin/cos/lg2/ex2/
//! tanh .approx`, with their documented special values.
//!
//! The PTX ISA bounds their error rather than defining bits. ptxemu computes each in f64 and
//! rounds to nearest, so every result is deterministic and at least as accurate as the bound:
//! `rcp/sqrt/rsqrt .approx.f32` ≤ 0.5 ulp (bounds 1–2 ulp); `div.full.f32` is `a * rcp(b)`
//! with ptxas's operand scaling, two roundings (≤ 1.5 ulp; bound 2 ulp), as an H100 computes it;
//! `sin/cos .approx.f32` absolute error ≤ 2^-24 on [-π, π] (bound 2^-20.5);
//! `lg2/ex2 .approx.f32` ≤ 0.5 ulp (bounds 2^-22); `tanh.approx.f32` ≤ 0.5 ulp (bound 2^-11).
//!
//! Deliberate deviations:
//! 1. Results are more accurate than hardware's, so bitwise comparison with a GPU run of these
//!    instructions is expected to differ in the last bits (difftest excludes them).
//! 2. `div.approx.f32` is `a * rcp(b)` with both steps rounded to nearest, and 0 for
//!    2^126 < |b| < 2^128 (as the ISA describes); hardware's exact bits may differ by 1 ulp.

use super::float::{ftz32, ftz64, NAN32, NAN64};

fn narrow(x: f64, ftz: bool) -> f32 {
    let r = x as f32;
    if r.is_nan() {
        f32::from_bits(NAN32)
    } else if ftz {
        ftz32(r)
    } else {
        r
    }
}

fn flush_in(x: f32, ftz: bool) -> f64 {
    f64::from(if ftz { ftz32(x) } else { x })
}

/// `rcp.approx{.ftz}.f32`.
pub fn rcp32(a: f32, ftz: bool) -> f32 {
    narrow(1.0 / flush_in(a, ftz), ftz)
}

/// `rcp.approx.ftz.f64`: flushes subnormal inputs and results.
pub fn rcp64_ftz(a: f64) -> f64 {
    let r = ftz64(1.0 / ftz64(a));
    if r.is_nan() {
        f64::from_bits(NAN64)
    } else {
        r
    }
}

/// `sqrt.approx{.ftz}.f32`.
pub fn sqrt32(a: f32, ftz: bool) -> f32 {
    narrow(flush_in(a, ftz).sqrt(), ftz)
}

/// `rsqrt.approx{.ftz}.f32`: `rsqrt(±0) = ±inf`, negative inputs give NaN.
pub fn rsqrt32(a: f32, ftz: bool) -> f32 {
    let x = flush_in(a, ftz);
    if x == 0.0 {
        return if x.is_sign_negative() {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        };
    }
    narrow(1.0 / x.sqrt(), ftz)
}

/// `rsqrt.approx.f64` / `rsqrt.approx.ftz.f64`.
pub fn rsqrt64(a: f64, ftz: bool) -> f64 {
    let x = if ftz { ftz64(a) } else { a };
    if x == 0.0 {
        return if x.is_sign_negative() {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    let r = 1.0 / x.sqrt();
    if r.is_nan() {
        f64::from_bits(NAN64)
    } else if ftz {
        ftz64(r)
    } else {
        r
    }
}

/// `div.approx{.ftz}.f32`.
pub fn div32(a: f32, b: f32, ftz: bool) -> f32 {
    let (x, y) = (flush_in(a, ftz), flush_in(b, ftz));
    if y.abs() > 2f64.powi(126) && y.is_finite() && x.is_finite() {
        let neg = x.is_sign_negative() != y.is_sign_negative();
        return if neg { -0.0 } else { 0.0 };
    }
    let r = (1.0 / y) as f32;
    let r = if ftz { ftz32(r) } else { r };
    narrow(x * f64::from(r), ftz)
}

/// `div.full{.ftz}.f32` as ptxas builds it for sm_90 (the H100 replay matches it bit for bit):
/// both operands scaled by 1/4 when |b| > 2^126 (and, without `.ftz`, by 2^24 when `b` is
/// subnormal), then `a * rcp(b)`, each step rounded to nearest; the reciprocal is the
/// hardware's `MUFU.RCP`, modelled as [`rcp32`] with `.ftz` (correctly rounded).
pub fn div_full32(a: f32, b: f32, ftz: bool) -> f32 {
    let fl = |x: f32| if ftz { ftz32(x) } else { x };
    let (mut a, mut b) = (fl(a), fl(b));
    if b.abs() > 2f32.powi(126) {
        (a, b) = (fl(a * 0.25), b * 0.25);
    } else if !ftz && b.abs() < f32::MIN_POSITIVE {
        (a, b) = (a * 16_777_216.0, b * 16_777_216.0);
    }
    narrow(f64::from(rcp32(b, true)) * f64::from(a), ftz)
}

/// `sin.approx{.ftz}.f32`.
pub fn sin32(a: f32, ftz: bool) -> f32 {
    narrow(flush_in(a, ftz).sin(), ftz)
}

/// `cos.approx{.ftz}.f32`.
pub fn cos32(a: f32, ftz: bool) -> f32 {
    narrow(flush_in(a, ftz).cos(), ftz)
}

/// `lg2.approx{.ftz}.f32`: `lg2(±0) = -inf`, negative inputs give NaN.
pub fn lg2_32(a: f32, ftz: bool) -> f32 {
    let x = flush_in(a, ftz);
    if x == 0.0 {
        return f32::NEG_INFINITY;
    }
    narrow(x.log2(), ftz)
}

/// `ex2.approx{.ftz}.f32`: `ex2(-inf) = +0`.
pub fn ex2_32(a: f32, ftz: bool) -> f32 {
    narrow(flush_in(a, ftz).exp2(), ftz)
}

/// `tanh.approx.f32`.
pub fn tanh32(a: f32) -> f32 {
    narrow(f64::from(a).tanh(), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps(a: f32, b: f64) -> f64 {
        let exact = b as f32;
        (f64::from(a.to_bits()) - f64::from(exact.to_bits())).abs()
    }

    #[test]
    fn special_values() {
        assert_eq!(rsqrt32(0.0, false), f32::INFINITY);
        assert_eq!(rsqrt32(-0.0, false), f32::NEG_INFINITY);
        assert_eq!(rsqrt32(-1.0, false).to_bits(), NAN32);
        assert_eq!(lg2_32(0.0, false), f32::NEG_INFINITY);
        assert_eq!(lg2_32(-1.0, false).to_bits(), NAN32);
        assert_eq!(lg2_32(f32::INFINITY, false), f32::INFINITY);
        assert_eq!(ex2_32(f32::NEG_INFINITY, false), 0.0);
        assert_eq!(ex2_32(f32::INFINITY, false), f32::INFINITY);
        assert_eq!(sin32(f32::INFINITY, false).to_bits(), NAN32);
        assert_eq!(rcp32(0.0, false), f32::INFINITY);
        assert_eq!(
            rcp32(f32::from_bits(1), true),
            f32::INFINITY,
            "ftz input flushes to 0"
        );
        assert_eq!(tanh32(100.0), 1.0);
        assert!(div_full32(0.0, 0.0, false).is_nan());
        assert!(div_full32(f32::INFINITY, f32::INFINITY, false).is_nan());
        assert_eq!(div_full32(1.0, f32::INFINITY, false), 0.0);
        assert_eq!(div_full32(-1.0, 0.0, false), f32::NEG_INFINITY);
        let tiny = f32::from_bits(3);
        assert_eq!(
            div_full32(tiny, tiny, false),
            1.0,
            "subnormal divisor scaled by 2^24"
        );
        assert!(div_full32(tiny, tiny, true).is_nan(), "ftz: 0 / 0");
    }

    /// The H100 replay of Triton's dropout (`x / 0.7f` with `div.full.f32`): the GPU's result
    /// is `x * RN(1/0.7f)` rounded once more, which differs from the correctly rounded
    /// quotient here (recorded in litmus/hardware/nvidia-h100/replay).
    #[test]
    fn div_full_is_times_reciprocal() {
        let b = 1.0f32 - 0.3;
        // (x, the H100's quotient): element 31, 42 and 43 of dropout.div's input and output.
        for (x, gpu) in [
            (0x3f32_9c2f, 0x3f7f_2844),
            (0x3d81_dc22, 0x3db9_839f),
            (0x3e76_51db, 0x3eaf_f154),
        ] {
            let q = div_full32(f32::from_bits(x), b, false);
            assert_eq!(q.to_bits(), gpu, "{x:#x} / {b}");
            assert_ne!(
                q,
                f32::from_bits(x) / b,
                "the correctly rounded quotient differs"
            );
        }
    }

    #[test]
    fn within_documented_bounds() {
        for k in 1..2000 {
            let x = k as f32 * 0.001_57;
            assert!(ulps(rcp32(x, false), 1.0 / f64::from(x)) <= 1.0);
            assert!((f64::from(sin32(x, false)) - f64::from(x).sin()).abs() <= 2f64.powf(-20.5));
            assert!(ulps(lg2_32(x, false), f64::from(x).log2()) <= 2.0);
            assert!(ulps(div32(x, 3.0, false), f64::from(x) / 3.0) <= 2.0);
            assert!(ulps(div_full32(x, 0.7, false), f64::from(x) / 0.7f64) <= 2.0);
            assert!(ulps(div_full32(x, 3e38, false), f64::from(x) / 3e38) <= 2.0);
        }
        assert_eq!(div32(1.0, 2f32.powi(127), false), 0.0);
    }
}
