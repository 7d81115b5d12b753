//! IEEE arithmetic on `.f32` and `.f64` with PTX's modifiers: rounding `.rn .rz .rm .rp`,
//! `.ftz` (flush subnormal inputs and results to zero of the same sign; `.f32` only), `.sat`
//! (clamp the result to [0.0, 1.0], NaN to +0.0), and NaN results (PTX ISA "Floating-Point
//! Instructions").
//!
//! Round-to-nearest uses the host's IEEE operations, which are correctly rounded; the directed
//! modes are computed by `rustc_apfloat` (a port of LLVM's APFloat), also correctly rounded.
//! `sqrt` in directed modes is derived from the exactly computed sign of the residual.
//!
//! NaN results follow what NVIDIA GPUs produce (the PTX ISA leaves payloads unspecified;
//! established by `ptxemu difftest` on an H100, see `tests/difftest/`):
//! 1. `.f32` arithmetic returns the canonical NaN `0x7FFFFFFF`.
//! 2. `.f64` arithmetic returns its first NaN operand, quieted; an invalid operation on
//!    non-NaN operands (∞ − ∞, 0 × ∞, ∞ / ∞, √−1) returns `0xFFF8000000000000`.

use rustc_apfloat::ieee::{Double, Single};
use rustc_apfloat::{Float, FloatConvert, Round};

use crate::ir::FloatRounding;

/// The canonical f32 NaN.
pub const NAN32: u32 = 0x7FFF_FFFF;
/// The canonical f64 NaN (of PTX's approximate and comparison-derived results).
pub const NAN64: u64 = 0x7FFF_FFFF_FFFF_FFFF;
/// The NaN an `.f64` invalid operation on non-NaN operands returns on NVIDIA GPUs.
pub const DEFAULT_NAN64: u64 = 0xFFF8_0000_0000_0000;

/// The NaN an `.f64` operation on `ops` returns when its result `r` is NaN: the first NaN
/// operand with its quiet bit set, else [`DEFAULT_NAN64`]. Non-NaN results pass unchanged.
#[inline]
pub fn nan64_of(r: f64, ops: &[f64]) -> f64 {
    if !r.is_nan() {
        return r;
    }
    match ops.iter().find(|o| o.is_nan()) {
        Some(o) => f64::from_bits(o.to_bits() | (1 << 51)),
        None => f64::from_bits(DEFAULT_NAN64),
    }
}

/// The modifiers of a float instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mode {
    /// Rounding (`.rn` when none is written).
    pub rnd: FloatRounding,
    /// `.ftz`
    pub ftz: bool,
    /// `.sat`
    pub sat: bool,
}

impl Mode {
    /// Round to nearest even, no flushing, no saturation.
    pub const RN: Mode = Mode {
        rnd: FloatRounding::Rn,
        ftz: false,
        sat: false,
    };

    /// Whether the fast host path applies.
    #[inline]
    pub fn is_plain(self) -> bool {
        self == Mode::RN
    }
}

/// The APFloat rounding of a PTX float rounding (`.rna` is ties-away; `.rs` is treated as
/// `.rz`, the stochastic mode's deterministic bound).
pub fn ap_round(r: FloatRounding) -> Round {
    match r {
        FloatRounding::Rn => Round::NearestTiesToEven,
        FloatRounding::Rz | FloatRounding::Rs => Round::TowardZero,
        FloatRounding::Rm => Round::TowardNegative,
        FloatRounding::Rp => Round::TowardPositive,
        FloatRounding::Rna => Round::NearestTiesToAway,
    }
}

/// Flushes an f32 subnormal to a zero of the same sign.
#[inline]
pub fn ftz32(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// Flushes an f64 subnormal to a zero of the same sign.
#[inline]
pub fn ftz64(x: f64) -> f64 {
    if x.is_subnormal() {
        f64::from_bits(x.to_bits() & (1 << 63))
    } else {
        x
    }
}

/// Clamps to [0.0, 1.0]; NaN and -0.0 become +0.0.
#[inline]
pub fn sat32(x: f32) -> f32 {
    if x.is_nan() || x <= 0.0 {
        0.0
    } else if x > 1.0 {
        1.0
    } else {
        x
    }
}

/// Clamps to [0.0, 1.0]; NaN and -0.0 become +0.0.
#[inline]
pub fn sat64(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        0.0
    } else if x > 1.0 {
        1.0
    } else {
        x
    }
}

#[inline]
fn canon32(x: f32) -> f32 {
    if x.is_nan() {
        f32::from_bits(NAN32)
    } else {
        x
    }
}

#[inline]
fn canon64(x: f64) -> f64 {
    if x.is_nan() {
        f64::from_bits(NAN64)
    } else {
        x
    }
}

fn s(x: f32) -> Single {
    Single::from_bits(u128::from(x.to_bits()))
}

fn un_s(x: Single) -> f32 {
    f32::from_bits(x.to_bits() as u32)
}

fn d(x: f64) -> Double {
    Double::from_bits(u128::from(x.to_bits()))
}

fn un_d(x: Double) -> f64 {
    f64::from_bits(x.to_bits() as u64)
}

#[inline]
fn finish32(r: f32, m: Mode) -> f32 {
    let r = if m.ftz { ftz32(r) } else { r };
    let r = canon32(r);
    if m.sat {
        sat32(r)
    } else {
        r
    }
}

#[inline]
fn finish64(r: f64, m: Mode, ops: &[f64]) -> f64 {
    let r = nan64_of(r, ops);
    if m.sat {
        sat64(r)
    } else {
        r
    }
}

#[inline]
fn in32(x: f32, m: Mode) -> f32 {
    if m.ftz {
        ftz32(x)
    } else {
        x
    }
}

/// The binary operations this module rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `add`
    Add,
    /// `sub`
    Sub,
    /// `mul`
    Mul,
    /// `div`
    Div,
}

/// `op.f32 a, b` with the instruction's modifiers.
#[inline]
pub fn bin32(op: BinOp, a: f32, b: f32, m: Mode) -> f32 {
    let (a, b) = (in32(a, m), in32(b, m));
    let r = if m.rnd == FloatRounding::Rn {
        match op {
            BinOp::Add => a + b,
            BinOp::Sub => a - b,
            BinOp::Mul => a * b,
            BinOp::Div => a / b,
        }
    } else {
        let rnd = ap_round(m.rnd);
        let v = match op {
            BinOp::Add => s(a).add_r(s(b), rnd),
            BinOp::Sub => s(a).sub_r(s(b), rnd),
            BinOp::Mul => s(a).mul_r(s(b), rnd),
            BinOp::Div => s(a).div_r(s(b), rnd),
        };
        un_s(v.value)
    };
    finish32(r, m)
}

/// `op.f64 a, b` with the instruction's modifiers.
#[inline]
pub fn bin64(op: BinOp, a: f64, b: f64, m: Mode) -> f64 {
    let r = if m.rnd == FloatRounding::Rn {
        match op {
            BinOp::Add => a + b,
            BinOp::Sub => a - b,
            BinOp::Mul => a * b,
            BinOp::Div => a / b,
        }
    } else {
        let rnd = ap_round(m.rnd);
        let v = match op {
            BinOp::Add => d(a).add_r(d(b), rnd),
            BinOp::Sub => d(a).sub_r(d(b), rnd),
            BinOp::Mul => d(a).mul_r(d(b), rnd),
            BinOp::Div => d(a).div_r(d(b), rnd),
        };
        un_d(v.value)
    };
    finish64(r, m, &[a, b])
}

/// `fma.f32 a, b, c` (one rounding).
#[inline]
pub fn fma32(a: f32, b: f32, c: f32, m: Mode) -> f32 {
    let (a, b, c) = (in32(a, m), in32(b, m), in32(c, m));
    let r = if m.rnd == FloatRounding::Rn {
        a.mul_add(b, c)
    } else {
        un_s(s(a).mul_add_r(s(b), s(c), ap_round(m.rnd)).value)
    };
    finish32(r, m)
}

/// `fma.f64 a, b, c` (one rounding).
#[inline]
pub fn fma64(a: f64, b: f64, c: f64, m: Mode) -> f64 {
    let r = if m.rnd == FloatRounding::Rn {
        a.mul_add(b, c)
    } else {
        un_d(d(a).mul_add_r(d(b), d(c), ap_round(m.rnd)).value)
    };
    finish64(r, m, &[a, b, c])
}

/// The next f64 towards +infinity.
fn next_up64(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let b = x.to_bits();
    f64::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

/// The next f64 towards -infinity.
fn next_down64(x: f64) -> f64 {
    -next_up64(-x)
}

/// `sqrt.f64` in any rounding: the round-to-nearest root, corrected by the sign of the exact
/// residual `a - r*r` (computed exactly with a fused multiply-add).
pub fn sqrt64(a: f64, m: Mode) -> f64 {
    let r = a.sqrt();
    let r = if m.rnd == FloatRounding::Rn || !r.is_finite() || r == 0.0 {
        r
    } else {
        let res = (-r).mul_add(r, a);
        match m.rnd {
            FloatRounding::Rp if res > 0.0 => next_up64(r),
            FloatRounding::Rm | FloatRounding::Rz | FloatRounding::Rs if res < 0.0 => {
                next_down64(r)
            }
            _ => r,
        }
    };
    finish64(r, m, &[a])
}

/// `sqrt.f32` in any rounding (computed in f64, where the root of an f32 is exact enough
/// that a directed rounding of the f64 residual-corrected root is the f32 directed result).
pub fn sqrt32(a: f32, m: Mode) -> f32 {
    let a = in32(a, m);
    let r = if m.rnd == FloatRounding::Rn {
        a.sqrt()
    } else {
        let x = f64::from(a);
        let r = x.sqrt();
        if !r.is_finite() || r == 0.0 {
            r as f32
        } else {
            let res = (-r).mul_add(r, x);
            // r is within half an f64 ulp of the root; round it to f32 in the right direction,
            // treating an exactly representable r with a non-zero residual as just below/above.
            let mut bits = false;
            let conv: Single = d(r).convert_r(ap_round(m.rnd), &mut bits).value;
            let f = un_s(conv);
            if !bits && res != 0.0 {
                match m.rnd {
                    FloatRounding::Rp if res > 0.0 => f32_next_up(f),
                    FloatRounding::Rm | FloatRounding::Rz | FloatRounding::Rs if res < 0.0 => {
                        f32_next_down(f)
                    }
                    _ => f,
                }
            } else {
                f
            }
        }
    };
    finish32(r, m)
}

fn f32_next_up(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f32::from_bits(1);
    }
    let b = x.to_bits();
    f32::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

fn f32_next_down(x: f32) -> f32 {
    -f32_next_up(-x)
}

/// `rcp.rnd.f32`: a correctly rounded reciprocal.
pub fn rcp32(a: f32, m: Mode) -> f32 {
    bin32(BinOp::Div, 1.0, a, m)
}

/// `rcp.rnd.f64`: a correctly rounded reciprocal.
pub fn rcp64(a: f64, m: Mode) -> f64 {
    bin64(BinOp::Div, 1.0, a, m)
}

/// `neg` (a sign flip; `.ftz` flushes first; NaN stays NaN, canonical).
pub fn neg32(a: f32, ftz: bool) -> f32 {
    let a = if ftz { ftz32(a) } else { a };
    canon32(-a)
}

/// `abs` (clears the sign; `.ftz` flushes first; NaN canonical).
pub fn abs32(a: f32, ftz: bool) -> f32 {
    let a = if ftz { ftz32(a) } else { a };
    canon32(a.abs())
}

/// `neg.f64`.
pub fn neg64(a: f64) -> f64 {
    canon64(-a)
}

/// `abs.f64`.
pub fn abs64(a: f64) -> f64 {
    canon64(a.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(rnd: FloatRounding) -> Mode {
        Mode {
            rnd,
            ftz: false,
            sat: false,
        }
    }

    #[test]
    fn directed_rounding_of_one_third() {
        // 1/3 in f32: 0x3EAAAAAA (below) and 0x3EAAAAAB (above); nearest is 0x3EAAAAAB.
        assert_eq!(
            bin32(BinOp::Div, 1.0, 3.0, m(FloatRounding::Rn)).to_bits(),
            0x3EAA_AAAB
        );
        assert_eq!(
            bin32(BinOp::Div, 1.0, 3.0, m(FloatRounding::Rz)).to_bits(),
            0x3EAA_AAAA
        );
        assert_eq!(
            bin32(BinOp::Div, 1.0, 3.0, m(FloatRounding::Rm)).to_bits(),
            0x3EAA_AAAA
        );
        assert_eq!(
            bin32(BinOp::Div, 1.0, 3.0, m(FloatRounding::Rp)).to_bits(),
            0x3EAA_AAAB
        );
        assert_eq!(
            bin32(BinOp::Div, -1.0, 3.0, m(FloatRounding::Rm)).to_bits(),
            0xBEAA_AAAB
        );
        assert_eq!(
            bin32(BinOp::Div, -1.0, 3.0, m(FloatRounding::Rz)).to_bits(),
            0xBEAA_AAAA
        );
    }

    #[test]
    fn adding_a_tiny_value_moves_only_directed_results() {
        let tiny = f32::from_bits(1);
        assert_eq!(bin32(BinOp::Add, 1.0, tiny, m(FloatRounding::Rn)), 1.0);
        assert_eq!(
            bin32(BinOp::Add, 1.0, tiny, m(FloatRounding::Rp)).to_bits(),
            0x3F80_0001
        );
        assert_eq!(
            bin32(BinOp::Add, 1.0, -tiny, m(FloatRounding::Rz)).to_bits(),
            0x3F7F_FFFF
        );
        assert_eq!(
            bin64(BinOp::Add, 1.0, 1e-300, m(FloatRounding::Rp)),
            next_up64(1.0)
        );
        assert_eq!(
            bin64(BinOp::Sub, 1.0, 1e-300, m(FloatRounding::Rm)),
            next_down64(1.0)
        );
    }

    #[test]
    fn overflow_in_directed_modes() {
        let max = f32::MAX;
        assert_eq!(
            bin32(BinOp::Mul, max, 2.0, m(FloatRounding::Rn)),
            f32::INFINITY
        );
        assert_eq!(bin32(BinOp::Mul, max, 2.0, m(FloatRounding::Rz)), max);
        assert_eq!(bin32(BinOp::Mul, max, 2.0, m(FloatRounding::Rm)), max);
        assert_eq!(
            bin32(BinOp::Mul, -max, 2.0, m(FloatRounding::Rm)),
            f32::NEG_INFINITY
        );
    }

    #[test]
    fn ftz_sat_and_nan() {
        let sub = f32::from_bits(0x0000_0100);
        let ftz = Mode {
            rnd: FloatRounding::Rn,
            ftz: true,
            sat: false,
        };
        assert_eq!(bin32(BinOp::Add, sub, 0.0, ftz).to_bits(), 0);
        assert_eq!(bin32(BinOp::Add, -sub, -0.0, ftz).to_bits(), 0x8000_0000);
        assert_eq!(bin32(BinOp::Add, sub, 0.0, Mode::RN).to_bits(), 0x100);
        // 2^-126 * 0.5 is subnormal: flushed on output.
        assert_eq!(bin32(BinOp::Mul, f32::MIN_POSITIVE, 0.5, ftz).to_bits(), 0);
        let sat = Mode {
            rnd: FloatRounding::Rn,
            ftz: false,
            sat: true,
        };
        assert_eq!(bin32(BinOp::Add, 0.75, 0.5, sat), 1.0);
        assert_eq!(bin32(BinOp::Sub, 0.25, 0.5, sat).to_bits(), 0);
        assert_eq!(
            bin32(BinOp::Mul, f32::INFINITY, 0.0, sat).to_bits(),
            0,
            "NaN saturates to +0"
        );
        assert_eq!(
            bin32(BinOp::Mul, f32::INFINITY, 0.0, Mode::RN).to_bits(),
            NAN32
        );
        let payload = f32::from_bits(0x7FC0_1234);
        assert_eq!(bin32(BinOp::Add, payload, 1.0, Mode::RN).to_bits(), NAN32);
        // .f64: the first NaN operand quieted; an invalid operation gives 0xFFF8… (H100).
        let snan = f64::from_bits(0x7FF0_0000_0000_0042);
        assert_eq!(
            bin64(BinOp::Add, 1.0, snan, Mode::RN).to_bits(),
            0x7FF8_0000_0000_0042
        );
        let rz = Mode {
            rnd: FloatRounding::Rz,
            ..Mode::RN
        };
        assert_eq!(
            bin64(
                BinOp::Sub,
                f64::from_bits(0xFFF8_0000_0000_0007),
                f64::NAN,
                rz
            )
            .to_bits(),
            0xFFF8_0000_0000_0007
        );
        assert_eq!(
            bin64(BinOp::Sub, f64::INFINITY, f64::INFINITY, Mode::RN).to_bits(),
            DEFAULT_NAN64
        );
        assert_eq!(fma64(0.0, f64::INFINITY, 1.0, rz).to_bits(), DEFAULT_NAN64);
        assert_eq!(sqrt64(-1.0, Mode::RN).to_bits(), DEFAULT_NAN64);
        assert_eq!(neg32(payload, false).to_bits(), NAN32);
    }

    #[test]
    fn fma_rounds_once() {
        // (1 + 2^-23) * (1 - 2^-23) - 1 = -2^-46 exactly; a separate multiply would give 0.
        let a = 1.0 + f32::EPSILON;
        let b = 1.0 - f32::EPSILON;
        assert_eq!(fma32(a, b, -1.0, Mode::RN), -(2f32.powi(-46)));
        assert_eq!(fma32(a, b, -1.0, m(FloatRounding::Rz)), -(2f32.powi(-46)));
        assert_eq!(fma64(2.0, 3.0, 1.0, m(FloatRounding::Rm)), 7.0);
    }

    #[test]
    fn square_roots_in_every_mode() {
        assert_eq!(sqrt32(4.0, m(FloatRounding::Rz)), 2.0);
        let r2 = 2f32.sqrt();
        let up = sqrt32(2.0, m(FloatRounding::Rp));
        let down = sqrt32(2.0, m(FloatRounding::Rm));
        assert!(f64::from(down) < 2f64.sqrt() && 2f64.sqrt() < f64::from(up));
        assert_eq!(up.to_bits() - down.to_bits(), 1);
        assert!(r2 == up || r2 == down);
        assert_eq!(
            sqrt64(2.0, m(FloatRounding::Rp)).to_bits()
                - sqrt64(2.0, m(FloatRounding::Rm)).to_bits(),
            1
        );
        assert_eq!(sqrt32(-1.0, Mode::RN).to_bits(), NAN32);
        assert_eq!(sqrt32(-0.0, Mode::RN).to_bits(), 0x8000_0000);
    }
}
