//! Random rows of binary16 inputs for the tests of the row engines
//! ([`super::leading_rows`], [`super::exponent_sum_rows`]), the per-element reference they are
//! compared with and the comparison itself ([`check_rows`]), and the deterministic generator
//! the whole-tile tests ([`super::tile`]) use too.

use super::leading_rows::COLS;
use super::{dot_f32, dot_f32_wide, AccModel};
use crate::semantics::convert::{f16_to_f32, narrow_to_f64, Narrow};

/// A small deterministic generator (64-bit LCG, high bits).
pub(super) struct Rng(pub(super) u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as u32
    }

    pub(super) fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
}

/// The binary16 bits of an input with biased exponents in `exps` (1..=30 for normals), with
/// zeros of both signs, subnormals and (when `special`) infinities and NaNs among them.
fn input(rng: &mut Rng, exps: (u32, u32), special: bool) -> u32 {
    let sign = rng.below(2) << 15;
    let frac = rng.below(1 << 10);
    sign | match rng.below(40) {
        0 => 0,
        1 => frac.max(1), // subnormal
        2 if special => 0x7C00,
        3 if special => 0x7C00 | frac.max(1),
        _ => (exps.0 + rng.below(exps.1 - exps.0 + 1)) << 10 | frac,
    }
}

/// An accumulator: binary32 values of moderate exponents, with zeros, subnormals, values near
/// the largest finite one (so that blocks overflow), tiny ones, and (when `special`)
/// infinities and NaNs.
fn accumulator(rng: &mut Rng, special: bool) -> f32 {
    let sign = rng.below(2) << 31;
    let frac = rng.below(1 << 23);
    f32::from_bits(
        sign | match rng.below(40) {
            0 => 0,
            1 => frac.max(1),
            2 => (253 + rng.below(2)) << 23 | frac,
            3 => (1 + rng.below(30)) << 23 | frac,
            4 if special => 0x7F80_0000,
            5 if special => 0x7FC0_0000,
            _ => (100 + rng.below(60)) << 23 | frac,
        },
    )
}

/// One row of a test: A's row, eight columns of B and the row of C, as binary16 bits (A, B)
/// and binary32 (C).
pub(super) struct Row<const K: usize> {
    pub(super) a16: [u32; K],
    pub(super) b16: [[u32; COLS]; K],
    pub(super) c: [f32; COLS],
}

impl<const K: usize> Row<K> {
    /// Test row number `n`: random inputs with biased exponents in `exps` (with infinities and
    /// NaNs in every fifth row); every seventh row has a zero row of A and zero or tiny
    /// accumulators (exact zero sums, blocks aligned near binary32's smallest exponent); every
    /// eleventh is zeros throughout with one sign per column of B and one for A's row, so that
    /// all-zero blocks whose terms are all negative occur.
    pub(super) fn random(rng: &mut Rng, exps: (u32, u32), n: usize) -> Row<K> {
        let special = n.is_multiple_of(5);
        let mut a16: [u32; K] = std::array::from_fn(|_| input(rng, exps, special));
        let mut b16: [[u32; COLS]; K] =
            std::array::from_fn(|_| std::array::from_fn(|_| input(rng, exps, special)));
        let mut c: [f32; COLS] = std::array::from_fn(|_| accumulator(rng, special));
        if n % 7 == 1 {
            a16 = std::array::from_fn(|_| rng.below(2) << 15);
            c = std::array::from_fn(|_| {
                let sign = rng.below(2) << 31;
                let field = match rng.below(3) {
                    0 => 0,
                    _ => 1 + rng.below(40),
                };
                f32::from_bits(sign | field << 23 | (rng.below(1 << 23) * u32::from(field != 0)))
            });
        }
        if n % 11 == 3 {
            a16 = [rng.below(2) << 15; K];
            b16 = [std::array::from_fn(|_| rng.below(2) << 15); K];
            c = std::array::from_fn(|_| if rng.below(2) == 0 { 0.0 } else { -0.0 });
        }
        Row { a16, b16, c }
    }

    /// A's row widened to binary32.
    pub(super) fn a(&self) -> [f32; K] {
        self.a16.map(f16_to_f32)
    }

    /// B's columns widened to binary32.
    pub(super) fn b(&self) -> [[f32; COLS]; K] {
        self.b16.map(|r| r.map(f16_to_f32))
    }

    /// Column `j` by the per-element reference: [`dot_f32`] and [`dot_f32_wide`] of the
    /// inputs widened to binary64 by [`narrow_to_f64`].
    pub(super) fn reference(&self, model: &AccModel, j: usize) -> (f32, f64) {
        let widen = |h: u32| narrow_to_f64(u64::from(h), Narrow::F16);
        let a: Vec<f64> = self.a16.iter().map(|h| widen(*h)).collect();
        let b: Vec<f64> = (0..K).map(|kk| widen(self.b16[kk][j])).collect();
        (
            dot_f32(model, &a, &b, self.c[j]),
            dot_f32_wide(model, &a, &b, self.c[j]),
        )
    }

    /// A description for a failure message: column `j`'s inputs.
    pub(super) fn describe(&self, j: usize) -> String {
        let b: Vec<u32> = (0..K).map(|kk| self.b16[kk][j]).collect();
        format!("a {:x?}\n b column {b:x?}\n c {:e}", self.a16, self.c[j])
    }
}

/// Whether two binary32 results are the same bits (any NaN matching any NaN).
pub(super) fn same(x: f32, y: f32) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

/// A row engine's result for one row: D, and the binary64 sums it was rounded from when the
/// engine gives them.
pub(super) struct RowResult {
    pub(super) d: [f32; COLS],
    pub(super) wide: Option<[f64; COLS]>,
}

/// Compares `rows` random rows of length `K` under `model` through a row engine:
/// `run(row, portable)` is the engine's AVX2 form (`false`) or portable form (`true`) on the
/// row, `None` where it declines the row. The two forms must give the same bits (or both
/// decline), and every row they compute must match the per-element reference, its binary64
/// sums too when the engine gives them. Returns how many rows the engine computed.
pub(super) fn check_rows<const K: usize>(
    model: AccModel,
    exps: (u32, u32),
    (rows, seed): (usize, u64),
    run: impl Fn(&Row<K>, bool) -> Option<RowResult>,
) -> usize {
    let mut rng = Rng(seed);
    let mut fast = 0;
    for n in 0..rows {
        let row = Row::<K>::random(&mut rng, exps, n);
        let (got, portable) = (run(&row, false), run(&row, true));
        assert_eq!(
            got.as_ref().map(|r| r.d.map(f32::to_bits)),
            portable.as_ref().map(|r| r.d.map(f32::to_bits)),
            "row {n}: the AVX2 and portable forms differ"
        );
        let (Some(got), Some(portable)) = (got, portable) else {
            continue;
        };
        assert_eq!(
            got.wide.map(|w| w.map(f64::to_bits)),
            portable.wide.map(|w| w.map(f64::to_bits)),
            "row {n}: the AVX2 and portable forms' binary64 sums differ"
        );
        fast += 1;
        for j in 0..COLS {
            let (want, want_wide) = row.reference(&model, j);
            let wide = got.wide.map(|w| w[j]);
            assert!(
                same(got.d[j], want) && wide.is_none_or(|w| w.to_bits() == want_wide.to_bits()),
                "{model:?} row {n} column {j}: {:e} ({:#x}), wide {wide:?}; the reference \
                 {want:e} ({:#x}), wide {want_wide:e}\n{}",
                got.d[j],
                got.d[j].to_bits(),
                want.to_bits(),
                row.describe(j),
            );
        }
    }
    fast
}
