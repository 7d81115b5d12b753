//! The exponent-sum accumulation model of [`super`] (the H100's, sm_90 and later:
//! [`super::Align::ExponentSum`]) for `.f16` inputs, eight columns of D at a time, in binary32,
//! 32-bit integer and binary64 arithmetic: the `wgmma` and `tcgen05.mma` counterpart of
//! [`super::leading_rows`], with the same reasons and the same exactness argument, step by
//! step against the reference (`dot_exponent_sum` in [`super`]):
//! 1. A product of two binary16 values is exact in binary32 (at most 22 significant bits,
//!    between 2^-48 and 2^32 in magnitude). Its alignment exponent is the sum of its factors'
//!    exponents, each at least the format's smallest normal one; B's are computed once per
//!    instruction ([`Panel`]), A's once per row.
//! 2. Scaling a term by `2^(width − e_max)` is exact, and truncating it toward zero gives an
//!    integer below `2^(width + 2)` (a product's significand lies in [1, 4)). With `width` at
//!    most 25 ([`exponent_sum_rows_apply`]), half a block of 16 products and the accumulator
//!    sum to less than 2^31: exact in `i32`; the two halves are added in binary64, exactly.
//! 3. The sum times `2^(e_max − width)` is exact in binary64; clearing the fraction bits
//!    binary32 does not hold rounds it toward zero, and the conversion to binary32 is then
//!    exact while the result is normal, and an infinity of the sign on overflow, as the
//!    reference gives.
//!
//! A row with an input or accumulator that is not finite, or a block aligned below
//! `2^(width − 126)` (where the scale or the result would leave binary32's normal range), is
//! reported, and its caller computes it with the reference; the tests compare both on random
//! tiles that include all of these.

use super::leading_rows::COLS;
use super::{AccModel, Align, MmaInput};

const EXP_MASK: u32 = 0x7F80_0000;
const SIGN: u32 = 0x8000_0000;
/// The alignment exponent of a zero term: below every real one, even summed with another.
const NONE: i32 = -(1 << 20);
/// Binary64 fraction bits below binary32's 23.
const BELOW_BINARY32: u64 = (1 << 29) - 1;

/// Whether [`dot_row_f16_exponent_sum`] applies to inputs of format `input` under `model`:
/// the exponent-sum model, `.f16` inputs, blocks of 8 or 16 products and at most 25 bits kept.
pub fn exponent_sum_rows_apply(model: &AccModel, input: MmaInput) -> bool {
    input == MmaInput::F16
        && matches!(model.align, Align::ExponentSum { .. })
        && matches!(model.block, 8 | 16)
        && model.frac_bits + model.extra_bits <= 25
}

/// The alignment exponent of an input widened to binary32: its exponent, at least
/// `input_emin`; [`NONE`] for a zero.
#[inline(always)]
fn input_exponent(x: f32, input_emin: i32) -> i32 {
    let mag = x.to_bits() & !SIGN;
    let e = ((mag >> 23) as i32 - 127).max(input_emin);
    if mag == 0 {
        NONE
    } else {
        e
    }
}

/// Eight columns of B (rows `0..K`), widened exactly to binary32, with what every row of D
/// needs of them: each element's alignment exponent and whether all are finite.
#[derive(Clone, Debug)]
pub struct Panel<const K: usize> {
    vals: [[f32; COLS]; K],
    exps: [[i32; COLS]; K],
    finite: bool,
}

impl<const K: usize> Panel<K> {
    /// The panel of `vals` (`vals[kk]`: row `kk` of these columns) under `model`.
    pub fn new(model: &AccModel, vals: [[f32; COLS]; K]) -> Panel<K> {
        let input_emin = input_emin(model);
        let mut exps = [[0i32; COLS]; K];
        let mut finite = true;
        // Plain loops (no early exit), so that they vectorise.
        for (e_row, v_row) in exps.iter_mut().zip(&vals) {
            for (e, v) in e_row.iter_mut().zip(v_row) {
                *e = input_exponent(*v, input_emin);
                finite &= v.is_finite();
            }
        }
        Panel { vals, exps, finite }
    }
}

/// A row of A (`K` elements), widened exactly to binary32, with each element's alignment
/// exponent and whether all are finite: worked out once for every panel the row meets.
#[derive(Clone, Debug)]
pub struct ARow<const K: usize> {
    vals: [f32; K],
    exps: [i32; K],
    finite: bool,
}

impl<const K: usize> ARow<K> {
    /// The row `vals` under `model`.
    pub fn new(model: &AccModel, vals: [f32; K]) -> ARow<K> {
        let input_emin = input_emin(model);
        let mut exps = [0i32; K];
        let mut finite = true;
        for (e, v) in exps.iter_mut().zip(&vals) {
            *e = input_exponent(*v, input_emin);
            finite &= v.is_finite();
        }
        ARow { vals, exps, finite }
    }
}

/// The smallest normal exponent of the model's input format (0 for a model that does not
/// align to exponent sums, whose rows are declined anyway).
fn input_emin(model: &AccModel) -> i32 {
    match model.align {
        Align::ExponentSum { input_emin } => input_emin,
        Align::Leading => 0,
    }
}

/// One row of D, `d = c + a · b` for every column of the panel, under `model`
/// ([`exponent_sum_rows_apply`] must hold, and `K` must be a multiple of `model.block`): `a`
/// is the row of A, `c` the row of C. When `wide` is given it receives, per column, what
/// [`super::dot_f32_wide`] gives (the value an `.f16` D is rounded from). `None` when the row
/// leaves the range this arithmetic is exact in (see the module's notes); the caller then
/// computes it with [`super::dot_f32`] and [`super::dot_f32_wide`].
#[inline]
pub fn dot_row_f16_exponent_sum<const K: usize>(
    model: &AccModel,
    a: &ARow<K>,
    b: &Panel<K>,
    c: &[f32; COLS],
    wide: Option<&mut [f64; COLS]>,
) -> Option<[f32; COLS]> {
    row_with::<K>(model, a, b, c, wide, false)
}

/// [`dot_row_f16_exponent_sum`], with the portable form of the blocks where `portable` (for
/// the tests).
#[inline(always)]
fn row_with<const K: usize>(
    model: &AccModel,
    a: &ARow<K>,
    b: &Panel<K>,
    c: &[f32; COLS],
    wide: Option<&mut [f64; COLS]>,
    portable: bool,
) -> Option<[f32; COLS]> {
    debug_assert!(exponent_sum_rows_apply(model, MmaInput::F16));
    debug_assert!(K.is_multiple_of(model.block));
    if !b.finite || !a.finite {
        return None;
    }
    let width = model.frac_bits + model.extra_bits;
    let (ea, a) = (&a.exps, &a.vals);
    let mut acc = *c;
    let mut w = [0f64; COLS];
    let mut ok = true;
    let step = model.block;
    for k0 in (0..K).step_by(step) {
        let r = k0..k0 + step;
        let (a, ea) = (&a[r.clone()], &ea[r.clone()]);
        let (b, eb) = (&b.vals[r.clone()], &b.exps[r]);
        let operands = Block {
            width,
            a,
            ea,
            b,
            eb,
        };
        ok &= match (step, portable) {
            (16, false) => operands.add::<16>(&mut acc, &mut w),
            (16, true) => operands.add_portable::<16>(&mut acc, &mut w),
            (_, false) => operands.add::<8>(&mut acc, &mut w),
            (_, true) => operands.add_portable::<8>(&mut acc, &mut w),
        };
    }
    if let Some(wide) = wide {
        *wide = w;
    }
    ok.then_some(acc)
}

/// One block's operands: `B` elements of A's row with their exponents, and `B` rows of the
/// panel with theirs.
struct Block<'o> {
    width: u32,
    a: &'o [f32],
    ea: &'o [i32],
    b: &'o [[f32; COLS]],
    eb: &'o [[i32; COLS]],
}

impl Block<'_> {
    /// Adds the block to `acc`, every column together, and sets `wide` to the exact sums;
    /// false when the block leaves the exact range (then both are meaningless). The x86-64
    /// AVX2 form where the build has AVX2 (the workspace's default), else the portable one;
    /// both are tested against the reference.
    #[inline(always)]
    fn add<const B: usize>(&self, acc: &mut [f32; COLS], wide: &mut [f64; COLS]) -> bool {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        {
            avx2::add::<B>(self, acc, wide)
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
        {
            self.add_portable::<B>(acc, wide)
        }
    }

    /// [`Block::add`] in plain Rust.
    #[inline(always)]
    fn add_portable<const B: usize>(&self, acc: &mut [f32; COLS], wide: &mut [f64; COLS]) -> bool {
        let width = self.width as i32;
        let mut ok = true;
        // Per column: the alignment exponent, and the AND of every term's bits (its sign bit
        // says whether all terms are negative, the sign of an all-zero block's sum).
        let mut emax = [0i32; COLS];
        let mut all_bits = [0u32; COLS];
        for j in 0..COLS {
            let bits = acc[j].to_bits();
            let mag = bits & !SIGN;
            ok &= mag < EXP_MASK;
            // A subnormal accumulator counts with binary32's smallest normal exponent.
            emax[j] = if mag == 0 {
                NONE
            } else {
                ((mag >> 23) as i32).max(1) - 127
            };
            all_bits[j] = bits;
        }
        let mut p = [[0f32; COLS]; B];
        for (kk, pk) in p.iter_mut().enumerate() {
            for j in 0..COLS {
                pk[j] = self.a[kk] * self.b[kk][j];
                all_bits[j] &= pk[j].to_bits();
                emax[j] = emax[j].max(self.ea[kk] + self.eb[kk][j]);
            }
        }
        let mut halves = [[0i32; COLS]; 2];
        for j in 0..COLS {
            // 2^(width − e_max), saturating where out of range (and discarded).
            let scale = f32::from_bits(((127 + width - emax[j]) as u32) << 23);
            halves[0][j] = (acc[j] * scale) as i32;
            for (kk, row) in p.iter().enumerate() {
                let h = &mut halves[usize::from(kk >= B / 2)][j];
                *h = h.wrapping_add((row[j] * scale) as i32);
            }
        }
        for j in 0..COLS {
            let none = emax[j] < NONE / 2;
            ok &= none || emax[j] >= width - 126;
            let pow_q = f64::from_bits((((1023 + emax[j] - width) as i64) as u64) << 52);
            let v = (f64::from(halves[0][j]) + f64::from(halves[1][j])) * pow_q;
            let toward_zero = f64::from_bits(v.to_bits() & !BELOW_BINARY32);
            acc[j] = if none {
                f32::from_bits(all_bits[j] & SIGN)
            } else {
                toward_zero as f32
            };
            wide[j] = if none { f64::from(acc[j]) } else { v };
        }
        ok
    }
}

/// [`Block::add_portable`] in AVX2 instructions, a row of 8 columns in one register (two for
/// the binary64 steps): the same steps, where the conversions to integers need no saturation
/// (an out-of-range block is discarded, and `vcvttps2dq` gives a fixed value there).
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
mod avx2 {
    use super::{Block, BELOW_BINARY32, COLS, EXP_MASK, NONE, SIGN};
    use std::arch::x86_64::*;

    #[inline(always)]
    pub(super) fn add<const B: usize>(
        o: &Block<'_>,
        acc: &mut [f32; COLS],
        wide: &mut [f64; COLS],
    ) -> bool {
        let width = o.width as i32;
        let (a, ea): (&[f32; B], &[i32; B]) = (o.a.try_into().unwrap(), o.ea.try_into().unwrap());
        let (b, eb): (&[[f32; COLS]; B], &[[i32; COLS]; B]) =
            (o.b.try_into().unwrap(), o.eb.try_into().unwrap());
        // SAFETY: the build enables AVX2 (the `cfg` above), and the loads and stores are of
        // whole `[f32; 8]`, `[i32; 8]` and `[f64; 8]` arrays.
        unsafe {
            let c = _mm256_loadu_ps(acc.as_ptr());
            let bits = _mm256_castps_si256(c);
            let mag = _mm256_andnot_si256(_mm256_set1_epi32(SIGN as i32), bits);
            let not_finite = _mm256_cmpgt_epi32(mag, _mm256_set1_epi32(EXP_MASK as i32 - 1));
            let e_acc = _mm256_sub_epi32(
                _mm256_max_epi32(_mm256_srli_epi32(mag, 23), _mm256_set1_epi32(1)),
                _mm256_set1_epi32(127),
            );
            let acc_zero = _mm256_cmpeq_epi32(mag, _mm256_setzero_si256());
            let mut emax = _mm256_blendv_epi8(e_acc, _mm256_set1_epi32(NONE), acc_zero);
            let mut all_bits = bits;
            let mut p = [_mm256_setzero_ps(); B];
            for kk in 0..B {
                p[kk] = _mm256_mul_ps(_mm256_set1_ps(a[kk]), _mm256_loadu_ps(b[kk].as_ptr()));
                all_bits = _mm256_and_si256(all_bits, _mm256_castps_si256(p[kk]));
                let e = _mm256_add_epi32(
                    _mm256_set1_epi32(ea[kk]),
                    _mm256_loadu_si256(eb[kk].as_ptr().cast()),
                );
                emax = _mm256_max_epi32(emax, e);
            }
            let scale = _mm256_castsi256_ps(_mm256_slli_epi32(
                _mm256_sub_epi32(_mm256_set1_epi32(127 + width), emax),
                23,
            ));
            let mut h0 = _mm256_cvttps_epi32(_mm256_mul_ps(c, scale));
            let mut h1 = _mm256_setzero_si256();
            for (kk, pk) in p.iter().enumerate() {
                let t = _mm256_cvttps_epi32(_mm256_mul_ps(*pk, scale));
                if kk < B / 2 {
                    h0 = _mm256_add_epi32(h0, t);
                } else {
                    h1 = _mm256_add_epi32(h1, t);
                }
            }
            // The exact sums in binary64, columns 0..4 and 4..8, times 2^(e_max − width).
            let q = _mm256_sub_epi32(emax, _mm256_set1_epi32(width));
            let half = |v: __m256i, hi: bool| {
                if hi {
                    _mm256_extracti128_si256(v, 1)
                } else {
                    _mm256_castsi256_si128(v)
                }
            };
            let exact = |hi: bool| {
                let s = _mm256_add_pd(
                    _mm256_cvtepi32_pd(half(h0, hi)),
                    _mm256_cvtepi32_pd(half(h1, hi)),
                );
                let pow_q = _mm256_slli_epi64(
                    _mm256_add_epi64(_mm256_cvtepi32_epi64(half(q, hi)), _mm256_set1_epi64x(1023)),
                    52,
                );
                _mm256_mul_pd(s, _mm256_castsi256_pd(pow_q))
            };
            let (v_lo, v_hi) = (exact(false), exact(true));
            let below = _mm256_set1_epi64x(!BELOW_BINARY32 as i64);
            let narrow = |v: __m256d| {
                _mm256_cvtpd_ps(_mm256_castsi256_pd(_mm256_and_si256(
                    _mm256_castpd_si256(v),
                    below,
                )))
            };
            let r = _mm256_castps_si256(_mm256_set_m128(narrow(v_hi), narrow(v_lo)));
            let none = _mm256_cmpgt_epi32(_mm256_set1_epi32(NONE / 2), emax);
            let signed_zero = _mm256_and_si256(all_bits, _mm256_set1_epi32(SIGN as i32));
            let out = _mm256_blendv_epi8(r, signed_zero, none);
            _mm256_storeu_ps(acc.as_mut_ptr(), _mm256_castsi256_ps(out));
            _mm256_storeu_pd(wide.as_mut_ptr(), v_lo);
            _mm256_storeu_pd(wide.as_mut_ptr().add(4), v_hi);
            let none_mask = _mm256_movemask_ps(_mm256_castsi256_ps(none));
            if none_mask != 0 {
                for j in 0..COLS {
                    if none_mask & (1 << j) != 0 {
                        wide[j] = f64::from(acc[j]);
                    }
                }
            }
            let low = _mm256_andnot_si256(
                none,
                _mm256_cmpgt_epi32(_mm256_set1_epi32(width - 126), emax),
            );
            let bad = _mm256_or_si256(low, not_finite);
            _mm256_testz_si256(bad, bad) == 1
        }
    }
}

#[cfg(test)]
#[path = "mma_exponent_sum_rows_tests.rs"]
mod tests;
