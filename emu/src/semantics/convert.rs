//! `cvt`: conversions between integer and floating-point types of every width (PTX ISA "cvt").
//!
//! Integer → integer: sign or zero extension, truncation, and with `.sat` clamping to the
//! destination range. Float → integer: rounded by `.rni/.rzi/.rmi/.rpi` (`.rzi` when none is
//! written), always clamped to the destination range; NaN → 0, except that an `.f64` NaN
//! gives a 32- or 64-bit destination its sign bit alone (as an H100 does). Integer → float and narrowing
//! float → float: rounded by `.rn/.rz/.rm/.rp/.rna` (`.rn` when none). Widening float → float
//! is exact. A float → same-width float with an integer rounding rounds to an integral value.
//! `.ftz` flushes `.f32` subnormal inputs and results; `.sat` clamps float results to
//! [0.0, 1.0] (NaN → +0.0); `.relu` clamps negative results to +0.0 (NaN stays NaN);
//! `.satfinite` turns infinities and overflow into the largest finite value of the sign.
//!
//! Every source float widens exactly to f64, so a conversion is "widen, then round once to the
//! destination" (by `rustc_apfloat` for the narrow formats), which is correctly rounded.
//!
//! NaN results are the destination's canonical NaN, except `.f32` → `.f64`, which keeps the
//! payload and quiets it (as an H100 does).

use rustc_apfloat::ieee::{BFloat, Double, Float8E4M3FN, Float8E5M2, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round};

use super::float::{ap_round, ftz32};

mod narrow;
use crate::ir::{CvtRounding, FloatRounding, IntRounding, Type};
#[cfg(test)]
use narrow::narrow_to_f64_exact;
pub use narrow::{f16_to_f32, f32_to_f16_rn, f64_to_narrow, narrow_to_f64, Narrow};

/// The modifiers of a `cvt`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CvtMode {
    /// The rounding written, if any.
    pub rnd: Option<CvtRounding>,
    /// `.ftz`
    pub ftz: bool,
    /// `.sat`
    pub sat: bool,
    /// `.relu`
    pub relu: bool,
    /// `.satfinite`
    pub satfinite: bool,
}

/// `.rn` alone: the mode of a plain round-to-nearest conversion.
const RN: CvtMode = CvtMode {
    rnd: Some(CvtRounding::Float(FloatRounding::Rn)),
    ftz: false,
    sat: false,
    relu: false,
    satfinite: false,
};

/// The canonical NaN bit pattern of a float type.
pub fn canonical_nan(ty: Type) -> u64 {
    match ty {
        Type::F16 | Type::BF16 => 0x7FFF,
        Type::F64 => 0x7FFF_FFFF_FFFF_FFFF,
        _ => 0x7FFF_FFFF,
    }
}

/// Widens a float of type `ty` (bits) exactly to f64.
pub fn to_f64(bits: u64, ty: Type, ftz: bool) -> f64 {
    match ty {
        Type::F64 => f64::from_bits(bits),
        Type::F32 | Type::TF32 => {
            let f = f32::from_bits(bits as u32);
            f64::from(if ftz { ftz32(f) } else { f })
        }
        Type::F16 => narrow_to_f64(bits, Narrow::F16),
        Type::BF16 => f64::from(f32::from_bits((bits as u32 & 0xFFFF) << 16)),
        _ => f64::from_bits(bits),
    }
}

fn largest<F: Float>(neg: bool) -> u64 {
    let m = F::largest();
    (if neg { -m } else { m }).to_bits() as u64
}

fn float_round(r: Option<CvtRounding>) -> Round {
    match r {
        Some(CvtRounding::Float(f)) => ap_round(f),
        Some(CvtRounding::Int(_)) | None => Round::NearestTiesToEven,
    }
}

fn integral(x: f64, r: IntRounding) -> f64 {
    match r {
        IntRounding::Rni => x.round_ties_even(),
        IntRounding::Rzi => x.trunc(),
        IntRounding::Rmi => x.floor(),
        IntRounding::Rpi => x.ceil(),
    }
}

fn int_bits(ty: Type) -> u32 {
    ty.bits().min(64)
}

/// Float (widened to f64) → integer of type `dst`, rounded and clamped; NaN → 0.
pub fn float_to_int(x: f64, dst: Type, r: IntRounding) -> u64 {
    if x.is_nan() {
        return 0;
    }
    let v = integral(x, r);
    let bits = int_bits(dst);
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    if dst.is_signed() {
        let max = 2f64.powi(bits as i32 - 1);
        let out: i64 = if v >= max {
            if bits >= 64 {
                i64::MAX
            } else {
                (1i64 << (bits - 1)) - 1
            }
        } else if v < -max {
            if bits >= 64 {
                i64::MIN
            } else {
                -(1i64 << (bits - 1))
            }
        } else {
            v as i64
        };
        (out as u64) & mask
    } else {
        let max = 2f64.powi(bits as i32);
        if v >= max {
            mask
        } else if v <= 0.0 {
            0
        } else {
            v as u64
        }
    }
}

/// Integer → f64-representable rounding to a float type: returns the destination's bits.
fn int_to_float(v: i128, dst: Type, r: Round) -> u64 {
    match dst {
        Type::F64 => Double::from_i128_r(v, r).value.to_bits() as u64,
        Type::F32 => Single::from_i128_r(v, r).value.to_bits() as u64,
        Type::F16 => Half::from_i128_r(v, r).value.to_bits() as u64,
        Type::BF16 => BFloat::from_i128_r(v, r).value.to_bits() as u64,
        _ => 0,
    }
}

/// Rounds an f64 to float type `dst` (f64, f32, f16, bf16, tf32); returns its bits.
pub fn f64_to_float(x: f64, dst: Type, r: Round, satfinite: bool) -> u64 {
    match dst {
        Type::F64 => x.to_bits(),
        Type::F32 => {
            if x.is_nan() {
                return 0x7FFF_FFFF;
            }
            let mut lossy = false;
            let v: Single = Double::from_bits(u128::from(x.to_bits()))
                .convert_r(r, &mut lossy)
                .value;
            let b = v.to_bits() as u64;
            if satfinite && v.is_infinite() {
                return largest::<Single>(x.is_sign_negative());
            }
            b
        }
        Type::F16 => f64_to_narrow(x, Narrow::F16, r, satfinite),
        Type::BF16 => f64_to_narrow(x, Narrow::BF16, r, satfinite),
        Type::TF32 => tf32(x, r, satfinite),
        _ => 0,
    }
}

/// Rounds to TensorFloat-32 (an f32 with a 10-bit mantissa; the low 13 bits are zero).
fn tf32(x: f64, r: Round, satfinite: bool) -> u64 {
    if x.is_nan() {
        return 0x7FFF_FFFF;
    }
    let f = f64_to_float(x, Type::F32, r, false) as u32;
    let fv = f32::from_bits(f);
    if !fv.is_finite() {
        return if satfinite && fv.is_infinite() {
            u64::from(0x7F7F_E000 | (f & 0x8000_0000))
        } else {
            u64::from(f)
        };
    }
    // Round the f32 (itself rounded once from x) to 10 mantissa bits; x is an f32 input in
    // practice (cvt.*.tf32.f32), so the first rounding is exact.
    let low = f & 0x1FFF;
    let base = f & !0x1FFF;
    let half = 0x1000;
    let neg = f & 0x8000_0000 != 0;
    let up = match r {
        Round::NearestTiesToAway => low >= half,
        Round::NearestTiesToEven => low > half || (low == half && base & 0x2000 != 0),
        Round::TowardZero => false,
        Round::TowardPositive => low != 0 && !neg,
        Round::TowardNegative => low != 0 && neg,
    };
    let out = if up { base + 0x2000 } else { base };
    if satfinite && f32::from_bits(out).is_infinite() {
        return u64::from(0x7F7F_E000 | (out & 0x8000_0000));
    }
    u64::from(out)
}

fn flush_out(bits: u64, dst: Type, ftz: bool) -> u64 {
    if ftz && dst == Type::F32 {
        u64::from(ftz32(f32::from_bits(bits as u32)).to_bits())
    } else {
        bits
    }
}

fn is_neg_float(bits: u64, ty: Type) -> bool {
    let sign = match ty {
        Type::F64 => bits >> 63,
        Type::F16 | Type::BF16 => (bits >> 15) & 1,
        _ => (bits >> 31) & 1,
    };
    sign == 1
}

fn clamp_sat(bits: u64, ty: Type) -> u64 {
    let x = to_f64(bits, ty, false);
    let y = if x.is_nan() || x <= 0.0 {
        0.0
    } else if x > 1.0 {
        1.0
    } else {
        return bits;
    };
    f64_to_float(y, ty, Round::NearestTiesToEven, false)
}

/// `cvt.dst.src` of `bits` with the given modifiers; returns the destination's bits
/// (zero-extended to 64).
pub fn cvt(bits: u64, src: Type, dst: Type, m: CvtMode) -> u64 {
    // `cvt.rn.f16.f32` of a finite value, the conversion of every fp16 kernel's epilogue,
    // by bit fields (tested against the general path below).
    if src == Type::F32 && dst == Type::F16 && m == RN {
        if let Some(h) = f32_to_f16_rn(bits as u32) {
            return u64::from(h);
        }
    }
    let sint = src.is_integer();
    let dint = dst.is_integer();
    match (sint, dint) {
        (true, true) => {
            let sb = int_bits(src);
            let v: i128 = if src.is_signed() {
                let sh = 64 - sb;
                i128::from(((bits << sh) as i64) >> sh)
            } else {
                i128::from(if sb >= 64 {
                    bits
                } else {
                    bits & ((1u64 << sb) - 1)
                })
            };
            let db = int_bits(dst);
            let v = if m.sat {
                let (lo, hi) = if dst.is_signed() {
                    (-(1i128 << (db - 1)), (1i128 << (db - 1)) - 1)
                } else {
                    (0, (1i128 << db) - 1)
                };
                v.clamp(lo, hi)
            } else {
                v
            };
            let mask = if db >= 64 { u64::MAX } else { (1u64 << db) - 1 };
            (v as u64) & mask
        }
        (false, true) => {
            let x = to_f64(bits, src, m.ftz);
            let r = match m.rnd {
                Some(CvtRounding::Int(r)) => r,
                Some(CvtRounding::Float(FloatRounding::Rn)) => IntRounding::Rni,
                Some(CvtRounding::Float(FloatRounding::Rm)) => IntRounding::Rmi,
                Some(CvtRounding::Float(FloatRounding::Rp)) => IntRounding::Rpi,
                Some(CvtRounding::Float(_)) | None => IntRounding::Rzi,
            };
            if src == Type::F64 && x.is_nan() && int_bits(dst) >= 32 {
                // What NVIDIA GPUs return (observed by difftest on an H100): the sign bit of
                // the destination alone, where `.f32` sources give 0.
                return 1u64 << (int_bits(dst) - 1);
            }
            float_to_int(x, dst, r)
        }
        (true, false) => {
            let sb = int_bits(src);
            let v: i128 = if src.is_signed() {
                let sh = 64 - sb;
                i128::from(((bits << sh) as i64) >> sh)
            } else {
                i128::from(if sb >= 64 {
                    bits
                } else {
                    bits & ((1u64 << sb) - 1)
                })
            };
            let out = int_to_float(v, dst, float_round(m.rnd));
            let out = flush_out(out, dst, m.ftz);
            if m.sat {
                clamp_sat(out, dst)
            } else {
                out
            }
        }
        (false, false) => {
            let x = to_f64(bits, src, m.ftz);
            let out = if let Some(CvtRounding::Int(r)) = m.rnd {
                // Round to an integral value in the same (or a wider) format.
                if x.is_nan() {
                    canonical_nan(dst)
                } else {
                    f64_to_float(integral(x, r), dst, Round::NearestTiesToEven, false)
                }
            } else if x.is_nan() && src == Type::F32 && dst == Type::F64 {
                // Widening keeps the payload and quiets it, as NVIDIA GPUs do.
                let b = bits as u32;
                (u64::from(b >> 31) << 63)
                    | 0x7FF8_0000_0000_0000
                    | (u64::from(b & 0x003F_FFFF) << 29)
            } else if x.is_nan() && src == Type::F64 && dst == Type::F32 {
                // Narrowing keeps the payload's top bits and quiets it: an H200 turned the
                // f64 NaN 0x7FF8000000000000 into 0x7FC00000 (difftest, 2026-11-26), the
                // mirror of the widening rule above.
                let b = bits;
                u64::from(
                    (((b >> 63) as u32) << 31) | 0x7FC0_0000 | ((b >> 29) as u32 & 0x003F_FFFF),
                )
            } else if x.is_nan() {
                canonical_nan(dst)
            } else {
                f64_to_float(x, dst, float_round(m.rnd), m.satfinite)
            };
            let mut out = flush_out(out, dst, m.ftz);
            if m.relu && is_neg_float(out, dst) && !to_f64(out, dst, false).is_nan() {
                out = 0;
            }
            if m.sat {
                clamp_sat(out, dst)
            } else {
                out
            }
        }
    }
}

#[cfg(test)]
mod tests;
