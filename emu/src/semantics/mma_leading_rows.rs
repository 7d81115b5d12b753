//! The leading-bit accumulation model of [`super`] (Fasi et al.'s, the A100's and older:
//! [`super::Align::Leading`]) for `.f16` inputs, eight columns of D at a time, in binary32 and
//! 32-bit integer arithmetic: the shape of `mma.sync.m16n8k{8,16}`, where D's rows are 8 wide
//! and [`super::dot_f32`]'s one call per element spends more on set-up than on arithmetic.
//!
//! Why binary32 is exact here, step by step against [`super::dot_f32`]'s binary64 scaling:
//! 1. A product of two binary16 values has at most 22 significant bits and lies between
//!    2^-48 and 2^32 in magnitude, so it is a normal binary32 value, computed exactly.
//! 2. A block's alignment exponent is the largest exponent field among its products and the
//!    accumulator (integer maxima of the fields, as the binary64 reference's).
//! 3. Scaling a term by `2^(width − e_max)` is exact, and truncating it toward zero gives an
//!    integer below `2^(width + 1)`; `width` is at most 24 ([`rows_apply`]), so a block of at
//!    most 8 products and the accumulator sums to less than 2^31: exact in `i32`.
//! 4. The sum `s · 2^(e_max − width)` rounded toward zero to binary32: `s` is converted to
//!    binary32 (to nearest), stepped toward zero when that rounded away from zero, and scaled
//!    by a power of two, which is exact while the result is normal, and gives an infinity of
//!    the sign on overflow, as the reference does.
//!
//! A row whose block leaves that range (an input or accumulator that is not finite, a
//! subnormal C, an alignment exponent below `width − 126`, where the scale or the result
//! would leave binary32's normal range) is reported, and its caller computes it with the
//! reference; the tests compare both on random tiles that include all of these.

use super::{AccModel, Align, MmaInput};

/// Columns of D computed together.
pub const COLS: usize = 8;

const EXP_MASK: u32 = 0x7F80_0000;
const SIGN: u32 = 0x8000_0000;

/// Whether [`dot_row_f16`] applies to inputs of format `input` under `model`: the
/// leading-bit model, `.f16` inputs, blocks of 4 or 8 products and at most 24 bits kept.
pub fn rows_apply(model: &AccModel, input: MmaInput) -> bool {
    input == MmaInput::F16
        && model.align == Align::Leading
        && matches!(model.block, 4 | 8)
        && model.frac_bits + model.extra_bits <= 24
}

/// One row of D, `d = c + a · b` for every column, under `model` ([`rows_apply`] must hold,
/// and `K` must be a multiple of `model.block`): `a` is the row of A, `b[kk]` row `kk` of B,
/// `c` the row of C. `None` when a block leaves the range binary32 is exact in (see the
/// module's notes); the caller then computes the row with [`super::dot_f32`].
#[inline]
pub fn dot_row_f16<const K: usize>(
    model: &AccModel,
    a: &[f32; K],
    b: &[[f32; COLS]; K],
    c: &[f32; COLS],
) -> Option<[f32; COLS]> {
    row_with::<K>(model, a, b, c, false)
}

/// [`dot_row_f16`], with the portable form of the blocks where `portable` (for the tests).
#[inline(always)]
fn row_with<const K: usize>(
    model: &AccModel,
    a: &[f32; K],
    b: &[[f32; COLS]; K],
    c: &[f32; COLS],
    portable: bool,
) -> Option<[f32; COLS]> {
    debug_assert!(rows_apply(model, MmaInput::F16) && K.is_multiple_of(model.block));
    let width = model.frac_bits + model.extra_bits;
    // A subnormal accumulator's leading bit is not its exponent field's: the reference's.
    if c.iter()
        .any(|x| x.to_bits() & EXP_MASK == 0 && x.to_bits() & !SIGN != 0)
    {
        return None;
    }
    let mut acc = *c;
    let mut ok = true;
    let step = model.block;
    for k0 in (0..K).step_by(step) {
        let (a, b) = (&a[k0..k0 + step], &b[k0..k0 + step]);
        ok &= match (step, portable) {
            (8, false) => block::<8>(
                width,
                a.try_into().unwrap(),
                b.try_into().unwrap(),
                &mut acc,
            ),
            (8, true) => block_portable::<8>(
                width,
                a.try_into().unwrap(),
                b.try_into().unwrap(),
                &mut acc,
            ),
            (_, false) => block::<4>(
                width,
                a.try_into().unwrap(),
                b.try_into().unwrap(),
                &mut acc,
            ),
            (_, true) => block_portable::<4>(
                width,
                a.try_into().unwrap(),
                b.try_into().unwrap(),
                &mut acc,
            ),
        };
    }
    ok.then_some(acc)
}

/// One row of D by the per-element reference ([`super::dot_f32`], and into `wide`
/// [`super::dot_f32_wide`]), from operands held in binary32 as the row engines hold them:
/// what a caller computes for a row an engine declines.
pub fn reference_row<const K: usize>(
    model: &AccModel,
    a: &[f32; K],
    b: &[[f32; COLS]; K],
    c: &[f32; COLS],
    mut wide: Option<&mut [f64; COLS]>,
) -> [f32; COLS] {
    let a64 = a.map(f64::from);
    std::array::from_fn(|j| {
        let b64: [f64; K] = std::array::from_fn(|kk| f64::from(b[kk][j]));
        if let Some(w) = wide.as_deref_mut() {
            w[j] = super::dot_f32_wide(model, &a64, &b64, c[j]);
        }
        super::dot_f32(model, &a64, &b64, c[j])
    })
}

/// One block of `B` products added to `acc`, every column together; false when the block
/// leaves binary32's exact range (then `acc` is meaningless). The x86-64 AVX2 form where the
/// build has AVX2 (the workspace's default), else the portable one; both are tested against
/// the reference.
#[inline(always)]
fn block<const B: usize>(
    width: u32,
    a: &[f32; B],
    b: &[[f32; COLS]; B],
    acc: &mut [f32; COLS],
) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        avx2::block::<B>(width, a, b, acc)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        block_portable::<B>(width, a, b, acc)
    }
}

/// [`block`] in plain Rust.
#[inline(always)]
fn block_portable<const B: usize>(
    width: u32,
    a: &[f32; B],
    b: &[[f32; COLS]; B],
    acc: &mut [f32; COLS],
) -> bool {
    let mut p = [[0f32; COLS]; B];
    // Per column: the largest exponent field, and the AND of every term's bits (its sign bit
    // says whether all terms are negative, the sign of an all-zero block's sum).
    let mut fmax = [0u32; COLS];
    let mut all_bits = [u32::MAX; COLS];
    for j in 0..COLS {
        fmax[j] = acc[j].to_bits() & EXP_MASK;
        all_bits[j] = acc[j].to_bits();
    }
    for kk in 0..B {
        for j in 0..COLS {
            p[kk][j] = a[kk] * b[kk][j];
            let bits = p[kk][j].to_bits();
            fmax[j] = fmax[j].max(bits & EXP_MASK);
            all_bits[j] &= bits;
        }
    }
    // 2^(width − e_max): exponent field 127 + width − (fmax − 127).
    let mut scale = [0f32; COLS];
    let mut sum = [0i32; COLS];
    for j in 0..COLS {
        scale[j] = f32::from_bits(((254 + width) << 23).wrapping_sub(fmax[j]));
        // Saturating where the block is out of range (and discarded).
        sum[j] = (acc[j] * scale[j]) as i32;
    }
    for row in &p {
        for j in 0..COLS {
            sum[j] = sum[j].wrapping_add((row[j] * scale[j]) as i32);
        }
    }
    let mut ok = true;
    for j in 0..COLS {
        let s = sum[j];
        // To binary32 toward zero: the conversion rounds to nearest; a result larger in
        // magnitude than `s` steps back by one unit (its bits are sign and magnitude).
        let r = s as f32;
        let r = if (r as i32).unsigned_abs() > s.unsigned_abs() {
            f32::from_bits(r.to_bits() - 1)
        } else {
            r
        };
        // 2^(e_max − width): exponent field fmax − width.
        let pow_q = f32::from_bits(fmax[j].wrapping_sub(width << 23));
        acc[j] = if fmax[j] == 0 {
            f32::from_bits(all_bits[j] & SIGN)
        } else {
            r * pow_q
        };
        ok &= fmax[j] == 0 || (fmax[j] >= (width + 1) << 23 && fmax[j] != EXP_MASK);
    }
    ok
}

/// [`block_portable`] in AVX2 instructions, a row of 8 columns in one register: the same
/// steps, where the conversions to integers need no saturation (an out-of-range block is
/// discarded, and `vcvttps2dq` gives a fixed value there).
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
mod avx2 {
    use super::{COLS, EXP_MASK, SIGN};
    use std::arch::x86_64::*;

    #[inline(always)]
    pub(super) fn block<const B: usize>(
        width: u32,
        a: &[f32; B],
        b: &[[f32; COLS]; B],
        acc: &mut [f32; COLS],
    ) -> bool {
        // SAFETY: the build enables AVX2 (the `cfg` above), and the loads and stores are of
        // whole `[f32; 8]` arrays.
        unsafe {
            let exp = _mm256_set1_epi32(EXP_MASK as i32);
            let c = _mm256_loadu_ps(acc.as_ptr());
            let mut fmax = _mm256_and_si256(_mm256_castps_si256(c), exp);
            let mut all_bits = _mm256_castps_si256(c);
            let mut p = [_mm256_setzero_ps(); B];
            for kk in 0..B {
                p[kk] = _mm256_mul_ps(_mm256_set1_ps(a[kk]), _mm256_loadu_ps(b[kk].as_ptr()));
                let bits = _mm256_castps_si256(p[kk]);
                fmax = _mm256_max_epu32(fmax, _mm256_and_si256(bits, exp));
                all_bits = _mm256_and_si256(all_bits, bits);
            }
            let scale = _mm256_castsi256_ps(_mm256_sub_epi32(
                _mm256_set1_epi32(((254 + width) << 23) as i32),
                fmax,
            ));
            let mut sum = _mm256_cvttps_epi32(_mm256_mul_ps(c, scale));
            for pk in &p {
                sum = _mm256_add_epi32(sum, _mm256_cvttps_epi32(_mm256_mul_ps(*pk, scale)));
            }
            let r = _mm256_cvtepi32_ps(sum);
            let away = _mm256_cmpgt_epi32(
                _mm256_abs_epi32(_mm256_cvttps_epi32(r)),
                _mm256_abs_epi32(sum),
            );
            // `away` is −1 where the conversion rounded away from zero: one unit back.
            let r = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(r), away));
            let pow_q = _mm256_castsi256_ps(_mm256_sub_epi32(
                fmax,
                _mm256_set1_epi32((width << 23) as i32),
            ));
            let v = _mm256_castps_si256(_mm256_mul_ps(r, pow_q));
            let zero = _mm256_cmpeq_epi32(fmax, _mm256_setzero_si256());
            let signed_zero = _mm256_and_si256(all_bits, _mm256_set1_epi32(SIGN as i32));
            let out = _mm256_blendv_epi8(v, signed_zero, zero);
            _mm256_storeu_ps(acc.as_mut_ptr(), _mm256_castsi256_ps(out));
            // Exponent fields are below 2^31, so signed comparisons order them.
            let low = _mm256_cmpgt_epi32(_mm256_set1_epi32(((width + 1) << 23) as i32), fmax);
            let not_finite = _mm256_cmpeq_epi32(fmax, exp);
            let bad = _mm256_andnot_si256(zero, _mm256_or_si256(low, not_finite));
            _mm256_testz_si256(bad, bad) == 1
        }
    }
}

#[cfg(test)]
#[path = "mma_leading_rows_tests.rs"]
mod tests;
