//! The published example cases of Fasi, Higham, Mikaitis and Pranesh (PeerJ CS 7:e330, 2021;
//! the test suite tensor-cores-numerical-behavior): inputs and the results the paper reports for
//! V100 (blocks of four, no guard bits, truncation, no intermediate normalisation).

use super::*;

fn p(e: i32) -> f64 {
    2f64.powi(e)
}

fn v100() -> AccModel {
    AccModel::for_target(70, MmaInput::F16)
}

fn dot4(a: [f64; 4], b: [f64; 4], c: f64) -> f64 {
    f64::from(dot_f32(&v100(), &a, &b, c as f32))
}

#[test]
fn products_are_exact() {
    let x = 1.0 - p(-11);
    assert_eq!(
        dot4([x, 0.0, 0.0, 0.0], [x, 0.0, 0.0, 0.0], 0.0),
        1.0 - p(-10) + p(-22)
    );
    assert_eq!(dot4([x; 4], [x; 4], 0.0), 4.0 * (1.0 - p(-10) + p(-22)));
}

#[test]
fn small_products_vanish_beside_a_large_accumulator() {
    assert_eq!(dot4([0.5; 4], [p(-24); 4], 1.0), 1.0);
}

#[test]
fn truncation_toward_zero() {
    let b = [2.0, p(-23) + p(-24), 0.0, 0.0];
    assert_eq!(dot4([1.0; 4], b, 0.0), 2.0);
    assert_eq!(dot4([1.0; 4], b.map(|x| -x), 0.0), -2.0);
}

#[test]
fn no_guard_bits_in_alignment() {
    // Exact: 2^-24. V100 drops the last bit of C when aligning it to the product 1.
    assert_eq!(
        dot4([1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], -(1.0 - p(-24))),
        p(-23)
    );
}

#[test]
fn normalisation_only_at_the_end() {
    assert_eq!(dot4([1.0; 4], [p(-24); 4], 1.0 - p(-24)), 1.0 + p(-23));
}

#[test]
fn carries_out_and_truncates_when_normalising() {
    for i in 0..4 {
        let mut b = [1.0; 4];
        b[i] = p(-23);
        assert_eq!(dot4([1.0; 4], b, 1.0 + p(-22) + p(-23)), 4.0 + p(-21));
    }
    assert_eq!(dot4([1.0; 4], [1.0, 1.5, 1.75, 1.875], 1.875), 8.0);
    assert_eq!(dot4([1.0; 4], [1.0; 4], 1.0 + p(-22) + p(-23)), 5.0);
    assert_eq!(dot4([1.0; 4], [-1.0; 4], -1.0 - p(-22) - p(-23)), -5.0);
}

#[test]
fn subnormals_in_and_out() {
    assert_eq!(
        dot4([p(-24), 0.0, 0.0, 0.0], [4.0, 0.0, 0.0, 0.0], 0.0),
        p(-22)
    );
    assert_eq!(dot4([0.0; 4], [0.0; 4], p(-149)), p(-149));
}

#[test]
fn blocks_chain_through_a_binary32_accumulator() {
    // Eight products of 2^-25 after C = 1: each block of four truncates them away.
    let m = v100();
    assert_eq!(dot_f32(&m, &[1.0; 8], &[p(-25); 8], 1.0), 1.0);
    // One block of eight (sm_80) truncates them too (grid 2^-23).
    let a100 = AccModel::for_target(80, MmaInput::F16);
    assert_eq!(a100.block, 8);
    assert_eq!(dot_f32(&a100, &[1.0; 8], &[p(-25); 8], 1.0), 1.0);
}

#[test]
fn non_finite_inputs_follow_ieee() {
    let m = v100();
    assert!(dot_f32(&m, &[f64::INFINITY], &[0.0], 0.0).is_nan());
    assert_eq!(dot_f32(&m, &[f64::INFINITY], &[1.0], 1.0), f32::INFINITY);
    assert_eq!(
        dot_f32(&m, &[1.0], &[1.0], f32::NEG_INFINITY),
        f32::NEG_INFINITY
    );
}

#[test]
fn integer_dot_wraps_or_saturates() {
    assert_eq!(
        dot_int(&[127, 127], &[127, -128], 5, false),
        127 * 127 - 127 * 128 + 5
    );
    assert_eq!(dot_int(&[1], &[1], i32::MAX, false), i32::MIN);
    assert_eq!(dot_int(&[1], &[1], i32::MAX, true), i32::MAX);
    assert_eq!(dot_int(&[-1], &[1], i32::MIN, true), i32::MIN);
}

#[test]
fn f64_is_a_chain_of_fmas() {
    let e = p(-30);
    // (1 + e)(1 - e) = 1 - 2^-60 rounds to 1 unfused; fused with c = -1 it gives -2^-60.
    assert_eq!(dot_f64(&[1.0 + e], &[1.0 - e], -1.0), -(e * e));
}

/// Random dot products recorded from the independent Python model
/// (tests/fixtures/mma/model.py, through gen.py): every one must agree bit for bit.
#[test]
fn agrees_with_the_python_model() {
    let text = include_str!("../../../tests/fixtures/mma/vectors.tsv");
    let hex64 = |s: &str| -> Vec<f64> {
        s.split(',')
            .map(|h| f64::from_bits(u64::from_str_radix(h, 16).expect("hex")))
            .collect()
    };
    let mut n = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        let model = AccModel {
            block: f[0].parse().expect("block"),
            frac_bits: f[1].parse().expect("frac_bits"),
            extra_bits: 0,
            align: Align::Leading,
        };
        let c = f32::from_bits(u32::from_str_radix(f[2], 16).expect("c"));
        let (a, b) = (hex64(f[3]), hex64(f[4]));
        let want = u32::from_str_radix(f[5], 16).expect("d");
        let got = dot_f32(&model, &a, &b, c).to_bits();
        assert_eq!(got, want, "line {line}");
        n += 1;
    }
    assert_eq!(n, 400);
}

/// Random binary16-like values (all exponents, subnormals, zeros of both signs) and binary32
/// accumulators: the binary64 scaling of `dot_f32` gives what the integer alignment of
/// `block_sum` gives (the path the Python-model vectors above check).
#[test]
fn scaled_blocks_agree_with_integer_alignment() {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let half = |r: u64| -> f64 {
        let bits = (r & 0xFFFF) as u16;
        let e = (bits >> 10) & 0x1F;
        let f = f64::from(bits & 0x3FF);
        let mag = match e {
            0x1F => 1.5,
            0 => f * p(-24),
            _ => (1.0 + f / 1024.0) * p(i32::from(e) - 15),
        };
        let v = if (r >> 20).is_multiple_of(7) {
            0.0
        } else {
            mag
        };
        if bits & 0x8000 != 0 {
            -v
        } else {
            v
        }
    };
    let models = [
        AccModel::for_target(70, MmaInput::F16),
        AccModel::for_target(80, MmaInput::F16),
        AccModel::for_target(80, MmaInput::Tf32),
        AccModel::for_target(89, MmaInput::Fp8),
    ];
    for n in 0..20_000 {
        let model = models[n % models.len()];
        // Half whole blocks (the unrolled path), half any length.
        let k = if n % 2 == 0 {
            model.block * (1 + (next() % 4) as usize)
        } else {
            1 + (next() % 40) as usize
        };
        let a: Vec<f64> = (0..k).map(|_| half(next())).collect();
        let b: Vec<f64> = (0..k).map(|_| half(next())).collect();
        let r = next();
        // Zero, binary32 subnormals, and random binary32 values of magnitude 2^-60..2^40.
        let c = match r % 4 {
            0 => 0.0,
            1 => f32::from_bits(r as u32 >> 9),
            _ => {
                let e = 67 + ((r >> 8) % 100) as u32;
                f32::from_bits(((r >> 40) as u32 & 0x8000_0000) | (e << 23) | (r as u32 >> 9))
            }
        };
        let products: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
        let fast = dot_f32(&model, &a, &b, c);
        let want = dot_products(&model, &products, c);
        assert_eq!(fast.to_bits(), want.to_bits(), "{model:?} {a:?} {b:?} {c}");
    }
}
