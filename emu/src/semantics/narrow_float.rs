//! The narrow floating-point element and scale formats of sm_100 tensor cores, decoded exactly.
//!
//! PTX ISA "Alternate floating-point data formats" and the OCP Microscaling (MX) v1.0 formats:
//!
//! | format | bits | layout | bias | special codes |
//! |---|---|---|---|---|
//! | `e2m1` (fp4) | 4 | sign, 2 exponent, 1 mantissa | 1 | none (no infinity, no NaN) |
//! | `e2m3` (fp6) | 6 | sign, 2 exponent, 3 mantissa | 1 | none |
//! | `e3m2` (fp6) | 6 | sign, 3 exponent, 2 mantissa | 3 | none |
//! | `e4m3` (fp8) | 8 | sign, 4 exponent, 3 mantissa | 7 | `S.1111.111` is NaN, no infinity |
//! | `e5m2` (fp8) | 8 | sign, 5 exponent, 2 mantissa | 15 | IEEE infinities and NaNs |
//! | `ue8m0` (scale) | 8 | 8 exponent | 127 | `0xFF` is NaN; no zero |
//! | `ue4m3` (scale) | 8 | unused bit 7, 4 exponent, 3 mantissa | 7 | `0x7F` is NaN |
//!
//! An exponent field of zero is subnormal: `±2^(1-bias) · 0.m`. Every value of every format is
//! exactly a binary64 value, and so is the product of two elements and two scales (at most
//! 4 + 4 mantissa bits, exponents within ±300), so the MMA model
//! ([`super::mma::dot_f32`]) takes them as `f64`.
//!
//! ue4m3 has no sign: its bit 7 is ignored here (NVFP4 writers store it as 0; PTX does not say
//! what the hardware does with a set bit 7, so ptxemu reads the low seven bits only).
//!
//! e4m3 and e5m2 come from [`super::convert::narrow_to_f64`] (rustc_apfloat); the formats
//! rustc_apfloat lacks are decoded here by their fields. The tests compare every code of every
//! format with `narrow_float_cases.txt`, written by the independent Python model
//! `tests/fixtures/narrow_float/model.py` (itself checked against ml_dtypes).

use super::convert::{narrow_to_f64, Narrow};

/// An element format of the tensor-core MMA kinds `f8f6f4`, `mxf8f6f4`, `mxf4` and `mxf4nvf4`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemFormat {
    /// fp4 `e2m1`
    E2M1,
    /// fp6 `e2m3`
    E2M3,
    /// fp6 `e3m2`
    E3M2,
    /// fp8 `e4m3`
    E4M3,
    /// fp8 `e5m2`
    E5M2,
}

/// A block-scale factor format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScaleFormat {
    /// `ue8m0`: a power of two `2^(code-127)`, NaN at `0xFF`
    UE8M0,
    /// `ue4m3`: unsigned e4m3, NaN at `0x7F`
    UE4M3,
}

impl ElemFormat {
    /// The width of one element's code in bits.
    pub const fn bits(self) -> u32 {
        match self {
            ElemFormat::E2M1 => 4,
            ElemFormat::E2M3 | ElemFormat::E3M2 => 6,
            ElemFormat::E4M3 | ElemFormat::E5M2 => 8,
        }
    }

    /// The exact value of `code` (its low [`Self::bits`] bits; higher bits are ignored).
    pub fn decode(self, code: u32) -> f64 {
        match self {
            ElemFormat::E2M1 => e2m1_to_f64(code as u8),
            ElemFormat::E2M3 => e2m3_to_f64(code as u8),
            ElemFormat::E3M2 => e3m2_to_f64(code as u8),
            ElemFormat::E4M3 => narrow_to_f64(u64::from(code & 0xFF), Narrow::E4M3),
            ElemFormat::E5M2 => narrow_to_f64(u64::from(code & 0xFF), Narrow::E5M2),
        }
    }

    /// The largest finite magnitude of the format.
    pub const fn max_finite(self) -> f64 {
        match self {
            ElemFormat::E2M1 => 6.0,
            ElemFormat::E2M3 => 7.5,
            ElemFormat::E3M2 => 28.0,
            ElemFormat::E4M3 => 448.0,
            ElemFormat::E5M2 => 57344.0,
        }
    }
}

impl ScaleFormat {
    /// The exact value of the 8-bit scale `code` (NaN for the format's NaN code).
    pub fn decode(self, code: u8) -> f64 {
        match self {
            ScaleFormat::UE8M0 => ue8m0_to_f64(code),
            ScaleFormat::UE4M3 => ue4m3_to_f64(code),
        }
    }
}

/// `m · 2^e` exactly, for `|m| < 2^53` and `-1074 <= e + bitlen(m)` and results in range.
fn ldexp(m: u32, e: i32) -> f64 {
    // m < 2^8 and e within [-140, 130] for every caller: both factors and the product are
    // exact binary64 values.
    f64::from(m) * pow2(e)
}

/// `2^e` for `-1022 <= e <= 1023`.
fn pow2(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}

/// A sign/exponent/mantissa code without infinities or NaNs (`ebits + mbits` magnitude bits
/// under a sign bit), decoded exactly.
fn sem(code: u32, ebits: u32, mbits: u32, bias: i32) -> f64 {
    let width = ebits + mbits;
    let mag = code & ((1 << width) - 1);
    let neg = (code >> width) & 1 == 1;
    let e = (mag >> mbits) as i32;
    let m = mag & ((1 << mbits) - 1);
    let v = if e == 0 {
        ldexp(m, 1 - bias - mbits as i32)
    } else {
        ldexp((1 << mbits) | m, e - bias - mbits as i32)
    };
    if neg {
        -v
    } else {
        v
    }
}

/// fp4 e2m1 (the low 4 bits of `code`): ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}.
pub fn e2m1_to_f64(code: u8) -> f64 {
    sem(u32::from(code) & 0xF, 2, 1, 1)
}

/// fp6 e2m3 (the low 6 bits of `code`): magnitudes 0 to 7.5 in steps of 1/8 below 2.
pub fn e2m3_to_f64(code: u8) -> f64 {
    sem(u32::from(code) & 0x3F, 2, 3, 1)
}

/// fp6 e3m2 (the low 6 bits of `code`): magnitudes 0 to 28, subnormals in steps of 1/16.
pub fn e3m2_to_f64(code: u8) -> f64 {
    sem(u32::from(code) & 0x3F, 3, 2, 3)
}

/// The ue8m0 scale `2^(code-127)`; `0xFF` is NaN.
pub fn ue8m0_to_f64(code: u8) -> f64 {
    if code == 0xFF {
        f64::NAN
    } else {
        pow2(i32::from(code) - 127)
    }
}

/// The ue4m3 scale (bits 6..0 of `code`, bit 7 ignored): unsigned e4m3; `0x7F` is NaN.
pub fn ue4m3_to_f64(code: u8) -> f64 {
    let c = code & 0x7F;
    if c == 0x7F {
        f64::NAN
    } else {
        sem(u32::from(c), 4, 3, 7)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model's value for one line of `narrow_float_cases.txt`.
    fn expected(bits: &str) -> f64 {
        if bits == "nan" {
            f64::NAN
        } else {
            f64::from_bits(u64::from_str_radix(bits, 16).expect("16 hex digits"))
        }
    }

    fn same(a: f64, b: f64) -> bool {
        (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
    }

    #[test]
    fn every_code_of_every_format_matches_the_python_model() {
        let cases = include_str!("narrow_float_cases.txt");
        let mut counts = std::collections::HashMap::new();
        for line in cases.lines() {
            let f: Vec<&str> = line.split(';').collect();
            let code: u32 = f[1].parse().unwrap();
            let want = expected(f[2]);
            let got = match f[0] {
                "e2m1" => ElemFormat::E2M1.decode(code),
                "e2m3" => ElemFormat::E2M3.decode(code),
                "e3m2" => ElemFormat::E3M2.decode(code),
                "ue8m0" => ScaleFormat::UE8M0.decode(code as u8),
                "ue4m3" => ScaleFormat::UE4M3.decode(code as u8),
                other => panic!("unknown format {other}"),
            };
            assert!(same(got, want), "{line}: got {got:e}");
            *counts.entry(f[0]).or_insert(0) += 1;
        }
        // Exhaustive: every code of every format.
        assert_eq!(counts["e2m1"], 16);
        assert_eq!(counts["e2m3"], 64);
        assert_eq!(counts["e3m2"], 64);
        assert_eq!(counts["ue8m0"], 256);
        assert_eq!(counts["ue4m3"], 128);
    }

    #[test]
    fn named_values() {
        assert_eq!(e2m1_to_f64(0x7), 6.0);
        assert_eq!(e2m1_to_f64(0x1), 0.5);
        assert_eq!(e2m1_to_f64(0xF), -6.0);
        assert!(e2m1_to_f64(0x8).is_sign_negative() && e2m1_to_f64(0x8) == 0.0);
        assert_eq!(e2m3_to_f64(0x1F), 7.5);
        assert_eq!(e2m3_to_f64(0x01), 0.125);
        assert_eq!(e3m2_to_f64(0x1F), 28.0);
        assert_eq!(e3m2_to_f64(0x01), 0.0625);
        assert_eq!(e3m2_to_f64(0x3F), -28.0);
        assert_eq!(ue8m0_to_f64(127), 1.0);
        assert_eq!(ue8m0_to_f64(0), 2f64.powi(-127));
        assert_eq!(ue8m0_to_f64(254), 2f64.powi(127));
        assert!(ue8m0_to_f64(255).is_nan());
        assert_eq!(ue4m3_to_f64(0x38), 1.0);
        assert_eq!(ue4m3_to_f64(0x7E), 448.0);
        assert_eq!(ue4m3_to_f64(0x01), 2f64.powi(-9));
        assert!(ue4m3_to_f64(0x7F).is_nan());
        // Bit 7 is not a sign.
        assert_eq!(ue4m3_to_f64(0xB8), 1.0);
        for f in [
            ElemFormat::E2M1,
            ElemFormat::E2M3,
            ElemFormat::E3M2,
            ElemFormat::E4M3,
            ElemFormat::E5M2,
        ] {
            let max = (0..1u32 << f.bits())
                .map(|c| f.decode(c))
                .filter(|v| v.is_finite())
                .fold(0f64, f64::max);
            assert_eq!(max, f.max_finite(), "{f:?}");
        }
        // The fp8 formats agree with `cvt`'s decoder.
        assert_eq!(ElemFormat::E4M3.decode(0x7E), 448.0);
        assert!(ElemFormat::E4M3.decode(0x7F).is_nan());
        assert_eq!(ElemFormat::E5M2.decode(0x7C), f64::INFINITY);
    }
}
