//! Tests of `cvt` and the narrow formats.

#[test]
fn the_fast_widening_agrees_with_apfloat_on_every_16_bit_pattern() {
    for n in [Narrow::F16, Narrow::BF16] {
        for bits in 0..=u64::from(u16::MAX) {
            let fast = narrow_to_f64(bits, n);
            let exact = narrow_to_f64_exact(bits, n);
            assert_eq!(fast.to_bits(), exact.to_bits(), "{n:?} {bits:#06x}");
        }
    }
}

#[test]
fn binary16_widens_exactly_in_binary32_on_every_pattern() {
    for bits in 0..=0xFFFFu32 {
        let want = narrow_to_f64(u64::from(bits), Narrow::F16);
        let got = f16_to_f32(bits);
        if want.is_nan() {
            assert!(got.is_nan(), "{bits:#06x}");
        } else {
            assert_eq!(f64::from(got).to_bits(), want.to_bits(), "{bits:#06x}");
        }
    }
}

/// The bit-field rounding of binary32 to binary16 against the general path (`rustc_apfloat`
/// through f64, exact for binary32): every binary32 exponent with fractions at and around each
/// rounding boundary, both signs, and two million random patterns.
#[test]
fn binary32_rounds_to_binary16_as_the_general_path_does() {
    let reference = |bits: u32| {
        f64_to_narrow(
            f64::from(f32::from_bits(bits)),
            Narrow::F16,
            rustc_apfloat::Round::NearestTiesToEven,
            false,
        ) as u16
    };
    let check = |bits: u32| {
        let got = f32_to_f16_rn(bits);
        if f32::from_bits(bits).is_finite() {
            assert_eq!(got, Some(reference(bits)), "{bits:#010x}");
        } else {
            assert_eq!(got, None, "{bits:#010x}");
        }
    };
    let mut n = 0u64;
    for sign in [0u32, 0x8000_0000] {
        for exp in 0..=255u32 {
            // The last 1..14 bits below binary16's precision at every position, and their
            // neighbours: ties, one above, one below, all ones.
            for low in 0..24u32 {
                for frac in [0u32, 1, 1 << low, (1 << low) - 1, (1 << low) + 1, 3 << low] {
                    for extra in [0u32, 0x7F_E000, 0x40_0000, 0x7F_FFFF] {
                        check(sign | (exp << 23) | ((frac | extra) & 0x7F_FFFF));
                        n += 1;
                    }
                }
            }
        }
    }
    let mut x = 0x1234_5678_9abc_def0u64;
    for _ in 0..2_000_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        check(x as u32);
        n += 1;
    }
    // Every binary16 value widened, and its binary32 neighbours.
    for h in 0..=0xFFFFu32 {
        let f = f16_to_f32(h).to_bits();
        for d in [0u32, 1, 0x1000, 0x0FFF, 0x2000] {
            check(f.wrapping_add(d));
            check(f.wrapping_sub(d));
            n += 2;
        }
    }
    assert!(n > 2_500_000);
}

use super::*;

fn mode(rnd: Option<CvtRounding>) -> CvtMode {
    CvtMode {
        rnd,
        ..CvtMode::default()
    }
}

#[test]
fn nan_conversions_match_the_gpu() {
    let nan64 = 0x7FF8_0000_0000_0000u64;
    let rpi = mode(Some(CvtRounding::Int(IntRounding::Rpi)));
    assert_eq!(cvt(nan64, Type::F64, Type::U32, rpi), 0x8000_0000);
    assert_eq!(cvt(nan64, Type::F64, Type::S64, rpi), 1 << 63);
    assert_eq!(
        cvt(0x7FC0_0000, Type::F32, Type::S32, rpi),
        0,
        "f32 NaN → 0"
    );
    assert_eq!(
        cvt(0x7FA0_0001, Type::F32, Type::F64, CvtMode::default()),
        0x7FFC_0000_2000_0000,
        "payload kept, quieted"
    );
}

#[test]
fn integer_to_integer() {
    let d = CvtMode::default();
    assert_eq!(cvt(0xFF, Type::S8, Type::S32, d), 0xFFFF_FFFF);
    assert_eq!(cvt(0xFF, Type::U8, Type::S32, d), 0xFF);
    assert_eq!(cvt(0x1_2345, Type::U32, Type::U16, d), 0x2345);
    let sat = CvtMode { sat: true, ..d };
    assert_eq!(cvt(300, Type::S32, Type::U8, sat), 255);
    assert_eq!(cvt((-5i32) as u32 as u64, Type::S32, Type::U16, sat), 0);
    assert_eq!(cvt(u64::MAX, Type::U64, Type::S32, sat), 0x7FFF_FFFF);
}

#[test]
fn float_to_integer_rounds_clamps_and_zeroes_nan() {
    let f = |x: f32| u64::from(x.to_bits());
    let r = |ir| mode(Some(CvtRounding::Int(ir)));
    assert_eq!(cvt(f(2.5), Type::F32, Type::S32, r(IntRounding::Rni)), 2);
    assert_eq!(cvt(f(3.5), Type::F32, Type::S32, r(IntRounding::Rni)), 4);
    assert_eq!(
        cvt(f(-2.5), Type::F32, Type::S32, r(IntRounding::Rzi)) as u32,
        (-2i32) as u32
    );
    assert_eq!(
        cvt(f(-2.5), Type::F32, Type::S32, r(IntRounding::Rmi)) as u32,
        (-3i32) as u32
    );
    assert_eq!(cvt(f(2.1), Type::F32, Type::S32, r(IntRounding::Rpi)), 3);
    assert_eq!(
        cvt(f(1e10), Type::F32, Type::S32, r(IntRounding::Rzi)),
        0x7FFF_FFFF
    );
    assert_eq!(
        cvt(f(-1e10), Type::F32, Type::S32, r(IntRounding::Rzi)),
        0x8000_0000
    );
    assert_eq!(cvt(f(-1.0), Type::F32, Type::U32, r(IntRounding::Rzi)), 0);
    assert_eq!(
        cvt(f(f32::NAN), Type::F32, Type::S32, r(IntRounding::Rzi)),
        0
    );
    assert_eq!(
        cvt(f(f32::INFINITY), Type::F32, Type::U64, r(IntRounding::Rzi)),
        u64::MAX
    );
    assert_eq!(
        cvt(1e19f64.to_bits(), Type::F64, Type::S64, r(IntRounding::Rzi)),
        i64::MAX as u64
    );
}

#[test]
fn integer_to_float_rounds() {
    let rn = mode(Some(CvtRounding::Float(FloatRounding::Rn)));
    let rz = mode(Some(CvtRounding::Float(FloatRounding::Rz)));
    // 2^24 + 1 is not an f32: nearest even is 2^24, toward zero too.
    assert_eq!(
        cvt(16_777_217, Type::S32, Type::F32, rn),
        u64::from(16_777_216f32.to_bits())
    );
    assert_eq!(
        cvt(16_777_219, Type::S32, Type::F32, rn),
        u64::from(16_777_220f32.to_bits())
    );
    assert_eq!(
        cvt(16_777_219, Type::S32, Type::F32, rz),
        u64::from(16_777_218f32.to_bits())
    );
    assert_eq!(
        cvt(u64::MAX, Type::U64, Type::F32, rz),
        u64::from(f32::from_bits(0x5F7F_FFFF).to_bits())
    );
    assert_eq!(
        cvt((-1i64) as u64, Type::S64, Type::F64, rn),
        (-1f64).to_bits()
    );
    assert_eq!(cvt(3, Type::U32, Type::F16, rn), 0x4200);
}

#[test]
fn float_to_float() {
    let rn = mode(Some(CvtRounding::Float(FloatRounding::Rn)));
    let rz = mode(Some(CvtRounding::Float(FloatRounding::Rz)));
    let f = |x: f32| u64::from(x.to_bits());
    assert_eq!(cvt(f(1.0), Type::F32, Type::F16, rn), 0x3C00);
    assert_eq!(
        cvt(f(65520.0), Type::F32, Type::F16, rn),
        0x7C00,
        "overflows to inf"
    );
    assert_eq!(
        cvt(f(65520.0), Type::F32, Type::F16, rz),
        0x7BFF,
        "toward zero stays finite"
    );
    let sf = CvtMode {
        satfinite: true,
        ..rn
    };
    assert_eq!(cvt(f(1e6), Type::F32, Type::F16, sf), 0x7BFF);
    assert_eq!(
        cvt(0x3C00, Type::F16, Type::F32, CvtMode::default()),
        f(1.0)
    );
    assert_eq!(
        cvt(0x0001, Type::F16, Type::F32, CvtMode::default()),
        f(2f32.powi(-24))
    );
    assert_eq!(cvt(f(1.0), Type::F32, Type::BF16, rn), 0x3F80);
    assert_eq!(
        cvt(0x3F80, Type::BF16, Type::F32, CvtMode::default()),
        f(1.0)
    );
    assert_eq!(cvt(0.1f64.to_bits(), Type::F64, Type::F32, rn), f(0.1));
    assert_eq!(
        cvt(f(0.1), Type::F32, Type::F64, CvtMode::default()),
        f64::from(0.1f32).to_bits()
    );
    assert_eq!(cvt(f(f32::NAN), Type::F32, Type::F16, rn), 0x7FFF);
    let relu = CvtMode { relu: true, ..rn };
    assert_eq!(cvt(f(-2.0), Type::F32, Type::F16, relu), 0);
    let rni = mode(Some(CvtRounding::Int(IntRounding::Rni)));
    assert_eq!(cvt(f(2.5), Type::F32, Type::F32, rni), f(2.0));
    let sat = CvtMode {
        sat: true,
        ..CvtMode::default()
    };
    assert_eq!(cvt(f(1.5), Type::F32, Type::F32, sat), f(1.0));
    let ftz = CvtMode {
        ftz: true,
        ..CvtMode::default()
    };
    assert_eq!(
        cvt(1, Type::F32, Type::F64, ftz),
        0,
        "subnormal f32 input flushed"
    );
}

#[test]
fn tf32_and_fp8() {
    let rna = mode(Some(CvtRounding::Float(FloatRounding::Rna)));
    // 1 + 2^-11 is exactly half way between tf32 neighbours 1 and 1 + 2^-10: ties away.
    let x = 1.0f32 + 2f32.powi(-11);
    assert_eq!(
        cvt(u64::from(x.to_bits()), Type::F32, Type::TF32, rna),
        u64::from((1.0f32 + 2f32.powi(-10)).to_bits())
    );
    assert_eq!(
        f64_to_narrow(448.0, Narrow::E4M3, Round::NearestTiesToEven, true),
        0x7E
    );
    assert_eq!(
        f64_to_narrow(1000.0, Narrow::E4M3, Round::NearestTiesToEven, true),
        0x7E
    );
    assert_eq!(
        f64_to_narrow(-1000.0, Narrow::E4M3, Round::NearestTiesToEven, true),
        0xFE
    );
    assert_eq!(
        f64_to_narrow(1.0, Narrow::E5M2, Round::NearestTiesToEven, true),
        0x3C
    );
    assert_eq!(narrow_to_f64(0x38, Narrow::E4M3), 1.0);
    assert_eq!(narrow_to_f64(0x3C, Narrow::E5M2), 1.0);
}
