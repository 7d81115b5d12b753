//! Narrow float formats (binary16, bfloat16, FP8 E4M3 and E5M2): exact widening to f64 and
//! rounding from f64.

use super::*;

/// A narrow float format a packed type holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Narrow {
    /// binary16
    F16,
    /// bfloat16
    BF16,
    /// FP8 E4M3 (no infinities)
    E4M3,
    /// FP8 E5M2
    E5M2,
}

/// A binary16 value (`bits`, the low 16 used) widened exactly to binary32, without a branch:
/// the magnitude's bits moved to binary32's positions read as a value `2^-112` times the
/// binary16 one, normal or subnormal alike; infinities and NaNs take binary32's all-ones
/// exponent (a NaN keeps its payload).
#[inline(always)]
pub fn f16_to_f32(bits: u32) -> f32 {
    let mag = bits & 0x7FFF;
    let scaled = f32::from_bits(mag << 13) * f32::from_bits(0x7780_0000); // · 2^112
    let special = f32::from_bits((mag << 13) | 0x7F80_0000);
    let v = if mag >= 0x7C00 { special } else { scaled };
    f32::from_bits(v.to_bits() | ((bits & 0x8000) << 16))
}

/// A finite binary32 value (`bits`) rounded to binary16 to nearest, ties to even, by its bit
/// fields; `None` for infinities and NaNs (which take the general path). Overflow rounds to
/// infinity and results below binary16's normal range are its subnormals (or zero), with the
/// sign kept.
#[inline]
pub fn f32_to_f16_rn(bits: u32) -> Option<u16> {
    let sign = ((bits >> 16) & 0x8000) as u16;
    let mag = bits & 0x7FFF_FFFF;
    if mag >= 0x7F80_0000 {
        return None;
    }
    // 65520 (the largest binary16, 65504, plus half its ulp) and above round to infinity.
    if mag >= 0x477F_F000 {
        return Some(sign | 0x7C00);
    }
    // 2^-14 and above are binary16 normals: rebias the exponent (127 to 15) and round the
    // fraction from 23 bits to 10; a carry out of the fraction steps the exponent.
    if mag >= 0x3880_0000 {
        let m = mag - 0x3800_0000;
        let rounded = m + 0x0FFF + ((m >> 13) & 1);
        return Some(sign | (rounded >> 13) as u16);
    }
    // Below: a multiple of 2^-24 (the subnormal unit), the significand shifted right by
    // 126 - exponent and rounded to nearest even. Binary32 subnormals are far below half a
    // unit and give zero, as every shift of 25 or more does.
    let exp = mag >> 23;
    if exp == 0 {
        return Some(sign);
    }
    let shift = 126 - exp;
    if shift >= 25 {
        return Some(sign);
    }
    let sig = (mag & 0x7F_FFFF) | 0x80_0000;
    let q = sig >> shift;
    let rest = sig & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    let up = rest > half || (rest == half && q & 1 == 1);
    Some(sign | (q + u32::from(up)) as u16)
}

/// Widens one narrow float exactly to f64.
///
/// Finite binary16 and bfloat16 values are widened by their bit fields (they are hot in MMA
/// operands); infinities, NaNs and the 8-bit formats go through `rustc_apfloat`, which the
/// fast path is tested against on every bit pattern.
#[inline]
pub fn narrow_to_f64(bits: u64, n: Narrow) -> f64 {
    match n {
        Narrow::F16 => {
            let h = bits as u16;
            let exp = (h >> 10) & 0x1f;
            if exp != 0 && exp != 0x1f {
                // Normal: the same sign and fraction, the exponent rebiased (15 to 1023).
                let bits = (u64::from(h & 0x8000) << 48)
                    | ((u64::from(exp) + 1008) << 52)
                    | (u64::from(h & 0x3ff) << 42);
                return f64::from_bits(bits);
            }
            if exp != 0x1f {
                let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
                let frac = f64::from(h & 0x3ff);
                // Subnormals are frac * 2^-24; normals (1024 + frac) * 2^(exp - 25).
                return sign
                    * match exp {
                        0 => frac * f64::from_bits(0x3e70_0000_0000_0000),
                        e => (1024.0 + frac) * pow2(i32::from(e) - 25),
                    };
            }
        }
        Narrow::BF16 => {
            let b = bits as u16;
            if (b >> 7) & 0xff != 0xff {
                return f64::from(f32::from_bits(u32::from(b) << 16));
            }
        }
        Narrow::E4M3 | Narrow::E5M2 => {}
    }
    narrow_to_f64_exact(bits, n)
}

/// 2^e for the exponents binary16 needs (exact).
fn pow2(e: i32) -> f64 {
    f64::from_bits(((1023 + i64::from(e)) as u64) << 52)
}

/// [`narrow_to_f64`] by `rustc_apfloat` alone.
pub(super) fn narrow_to_f64_exact(bits: u64, n: Narrow) -> f64 {
    let mut lossy = false;
    let d: Double = match n {
        Narrow::F16 => {
            Half::from_bits(u128::from(bits as u16))
                .convert(&mut lossy)
                .value
        }
        Narrow::BF16 => {
            BFloat::from_bits(u128::from(bits as u16))
                .convert(&mut lossy)
                .value
        }
        Narrow::E4M3 => {
            Float8E4M3FN::from_bits(u128::from(bits as u8))
                .convert(&mut lossy)
                .value
        }
        Narrow::E5M2 => {
            Float8E5M2::from_bits(u128::from(bits as u8))
                .convert(&mut lossy)
                .value
        }
    };
    f64::from_bits(d.to_bits() as u64)
}

/// Rounds an f64 to a narrow float format; returns its bits.
pub fn f64_to_narrow(x: f64, n: Narrow, r: Round, satfinite: bool) -> u64 {
    let src = Double::from_bits(u128::from(x.to_bits()));
    let mut lossy = false;
    let neg = x.is_sign_negative();
    if x.is_nan() {
        return match n {
            Narrow::F16 | Narrow::BF16 => 0x7FFF,
            Narrow::E4M3 | Narrow::E5M2 => 0x7F,
        };
    }
    let (bits, overflowed) = match n {
        Narrow::F16 => {
            let v: Half = src.convert_r(r, &mut lossy).value;
            (
                v.to_bits() as u64,
                v.is_infinite() && x.is_finite() || x.is_infinite(),
            )
        }
        Narrow::BF16 => {
            let v: BFloat = src.convert_r(r, &mut lossy).value;
            (
                v.to_bits() as u64,
                v.is_infinite() && x.is_finite() || x.is_infinite(),
            )
        }
        Narrow::E5M2 => {
            let v: Float8E5M2 = src.convert_r(r, &mut lossy).value;
            (
                v.to_bits() as u64,
                v.is_infinite() && x.is_finite() || x.is_infinite(),
            )
        }
        Narrow::E4M3 => {
            // No infinities: out-of-range values become NaN unless saturated.
            let v: Float8E4M3FN = src.convert_r(r, &mut lossy).value;
            (v.to_bits() as u64, v.is_nan())
        }
    };
    if satfinite && overflowed {
        return match n {
            Narrow::F16 => largest::<Half>(neg),
            Narrow::BF16 => largest::<BFloat>(neg),
            Narrow::E5M2 => largest::<Float8E5M2>(neg),
            Narrow::E4M3 => largest::<Float8E4M3FN>(neg),
        };
    }
    bits
}
