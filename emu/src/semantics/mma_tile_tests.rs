//! [`dot_tile_f32`] against the per-element reference ([`dot_f32`], [`dot_f32_wide`]) on
//! random tiles, under every accumulation model: the results must be the same bits.

use super::super::rows_test_inputs::Rng;
use super::super::{dot_f32, dot_f32_wide, AccModel, MmaInput};
use super::{dot_tile_f32, TileOperands};

/// An input of a format with `frac` fraction bits and exponents in `emin..=emax`: mostly
/// normal values, with zeros of both signs, subnormals and (when `special`) infinities and
/// NaNs.
fn input(rng: &mut Rng, frac: u32, (emin, emax): (i32, i32), special: bool) -> f64 {
    let sign = if rng.below(2) == 0 { 1.0 } else { -1.0 };
    match rng.below(40) {
        0 => sign * 0.0,
        1 if special => sign * f64::INFINITY,
        2 if special => f64::NAN,
        3 => {
            // subnormal of the format
            let m = f64::from(rng.below(1 << frac.min(20)) + 1);
            sign * m * 2f64.powi(emin - frac as i32)
        }
        _ => {
            let e = emin + rng.below((emax - emin + 1) as u32) as i32;
            let m = f64::from(rng.below(1 << frac.min(20)));
            sign * (1.0 + m / f64::from(1u32 << frac.min(20))) * 2f64.powi(e)
        }
    }
}

/// An accumulator: a binary32 of any exponent, sometimes zero, subnormal or not finite.
fn accumulator(rng: &mut Rng, special: bool) -> f32 {
    match rng.below(30) {
        0 => 0.0,
        1 => -0.0,
        2 => f32::from_bits(rng.below(1 << 23) | ((rng.below(2)) << 31)),
        3 if special => f32::INFINITY,
        4 if special => f32::NAN,
        _ => {
            let e = rng.below(60) as i32 - 30;
            let m = rng.below(1 << 23) as f32 / (1 << 23) as f32;
            let s = if rng.below(2) == 0 { 1.0 } else { -1.0 };
            s * (1.0 + m) * 2f32.powi(e)
        }
    }
}

fn same(x: f32, y: f32) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

fn same_wide(x: f64, y: f64) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

/// Compares the tile with the reference on `tiles` random tiles of format `input`.
fn check(model: AccModel, fmt: (u32, (i32, i32)), tiles: usize, seed: u64) {
    let mut rng = Rng(seed);
    for tile in 0..tiles {
        let (m, n, k) = (
            1 + rng.below(4) as usize,
            1 + rng.below(24) as usize,
            rng.below(40) as usize,
        );
        // Every third tile has infinities and NaNs; the rest only finite values, so that the
        // fast path is what is compared.
        let special = tile % 3 == 0;
        let a: Vec<f64> = (0..m * k)
            .map(|_| input(&mut rng, fmt.0, fmt.1, special))
            .collect();
        let b: Vec<f64> = (0..k * n)
            .map(|_| input(&mut rng, fmt.0, fmt.1, special))
            .collect();
        let c: Vec<f32> = (0..m * n).map(|_| accumulator(&mut rng, special)).collect();
        // Some rows and columns of zeros (masked edges of a tile).
        let mut a = a;
        if rng.below(4) == 0 && k > 0 {
            let r = rng.below(m as u32) as usize;
            a[r * k..(r + 1) * k].iter_mut().for_each(|x| *x = 0.0);
        }
        let t = TileOperands {
            m,
            n,
            k,
            a: &a,
            b: &b,
        };
        let mut d = vec![0f32; m * n];
        let mut wide = vec![0f64; m * n];
        dot_tile_f32(&model, &t, &c, &mut d, Some(&mut wide));
        let mut d2 = vec![0f32; m * n];
        dot_tile_f32(&model, &t, &c, &mut d2, None);
        for r in 0..m {
            for j in 0..n {
                let ar = &a[r * k..(r + 1) * k];
                let bc: Vec<f64> = (0..k).map(|kk| b[kk * n + j]).collect();
                let want = dot_f32(&model, ar, &bc, c[r * n + j]);
                let want_wide = dot_f32_wide(&model, ar, &bc, c[r * n + j]);
                let i = r * n + j;
                assert!(
                    same(d[i], want) && same(d2[i], want),
                    "{model:?} tile {tile} ({m}x{n}x{k}) element ({r}, {j}): {} and {}, the reference {want}",
                    d[i],
                    d2[i]
                );
                assert!(
                    same_wide(wide[i], want_wide),
                    "{model:?} tile {tile} element ({r}, {j}): wide {}, the reference {want_wide}",
                    wide[i]
                );
            }
        }
    }
}

const F16: (u32, (i32, i32)) = (10, (-14, 15));
const BF16: (u32, (i32, i32)) = (7, (-126, 127));
const TF32: (u32, (i32, i32)) = (10, (-126, 127));
const E4M3: (u32, (i32, i32)) = (3, (-6, 8));

#[test]
fn h100_model_matches_the_reference() {
    check(AccModel::for_target(90, MmaInput::F16), F16, 600, 1);
    check(AccModel::for_target(90, MmaInput::Bf16), BF16, 400, 2);
    check(AccModel::for_target(100, MmaInput::Tf32), TF32, 400, 3);
}

#[test]
fn a100_and_older_models_match_the_reference() {
    check(AccModel::for_target(80, MmaInput::F16), F16, 600, 4);
    check(AccModel::for_target(80, MmaInput::Bf16), BF16, 400, 5);
    check(AccModel::for_target(80, MmaInput::Tf32), TF32, 400, 6);
    check(AccModel::for_target(70, MmaInput::F16), F16, 400, 7);
}

#[test]
fn fp8_model_matches_the_reference() {
    check(AccModel::for_target(90, MmaInput::Fp8), E4M3, 400, 8);
}

#[test]
fn narrow_exponent_ranges_match_the_reference() {
    // Values of one binade, where cancellation and carries are common.
    check(
        AccModel::for_target(90, MmaInput::F16),
        (10, (0, 1)),
        400,
        9,
    );
    check(
        AccModel::for_target(80, MmaInput::F16),
        (10, (0, 1)),
        400,
        10,
    );
}
