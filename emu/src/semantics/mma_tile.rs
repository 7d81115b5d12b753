//! The accumulation model of [`super`] for a whole tile at once: `D = A·B + C` with every dot
//! product of a row of D advanced block by block together, in loops over D's columns that
//! the compiler vectorises.
//!
//! [`super::dot_f32`] computes one element of D at a time: per block it finds the exponent the
//! terms are aligned to, then truncates and adds them. An MMA instruction asks for M·N such
//! dot products over the same A rows and B columns, so the work that depends on one operand
//! only is done here once per tile (each element's exponent, the non-finite screen), and the
//! rest in straight loops over the N columns of one row: one pass over the block finds each
//! column's alignment exponent (integer adds and maxima), a second scales every product by
//! its column's power of two, truncates it toward zero and adds it (exact binary64 products,
//! exact power-of-two scaling, `vroundpd`). Every step is exact, so the result is bit for bit
//! the per-element reference's; [`dot_tile_f32`] falls back to that reference for an element
//! whose inputs are not finite, and for a block whose exponents leave binary64's exact range
//! (which finite tensor-core inputs never do, but the reference decides, not an assumption).
//!
//! Where the CPU has them (checked at run time) the loops are compiled for AVX2 or AVX-512;
//! the arithmetic is the same exact integer and binary64 work, so the result does not depend
//! on the path.
//!
//! Deliberate deviations: none; the tests compare with [`super::dot_f32`] and
//! [`super::dot_f32_wide`] on random tiles with zeros, signed zeros, subnormals, infinities,
//! NaNs and wide exponent ranges, under every model.

use super::{block_sum, dot_f32, dot_f32_wide, f64_to_f32_rz, field, leading_exponent, pow2};
use super::{AccModel, Align};
use std::cell::RefCell;

/// A tile's operands, widened exactly to binary64.
#[derive(Clone, Copy, Debug)]
pub struct TileOperands<'a> {
    /// Rows of A and of D.
    pub m: usize,
    /// Columns of B and of D.
    pub n: usize,
    /// The reduction length.
    pub k: usize,
    /// A, `m × k`, row-major.
    pub a: &'a [f64],
    /// B, `k × n`, row-major (row `kk` holds B's elements `(kk, 0..n)`).
    pub b: &'a [f64],
}

/// An exponent below every real one: the alignment exponent of a zero term.
const NONE: i32 = -(1 << 20);

/// Working rows, kept per thread so that an instruction allocates nothing once warm.
#[derive(Default)]
struct Scratch {
    /// Per element of A: its alignment exponent (exponent-sum model).
    ea: Vec<i32>,
    /// Per element of B.
    eb: Vec<i32>,
    /// Per column: whether the column of B holds a value that is not finite.
    bad_col: Vec<bool>,
    /// Per column of the row being computed.
    acc: Vec<f32>,
    emax: Vec<i32>,
    sum: Vec<f64>,
    scale: Vec<f64>,
    /// The products of one block (Leading model), `block × n`.
    prod: Vec<f64>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// `D = A·B + C` for every element of an `m × n` tile under `model`: `d[r·n + j]` is
/// [`dot_f32`]`(model, A row r, B column j, c[r·n + j])`, and, when `wide` is given,
/// `wide[r·n + j]` is [`dot_f32_wide`] of the same (the value an `.f16` D is rounded from).
///
/// # Panics
/// If a slice is shorter than the shapes say.
pub fn dot_tile_f32(
    model: &AccModel,
    t: &TileOperands<'_>,
    c: &[f32],
    d: &mut [f32],
    mut wide: Option<&mut [f64]>,
) {
    let (m, n, k) = (t.m, t.n, t.k);
    assert!(t.a.len() >= m * k && t.b.len() >= k * n && c.len() >= m * n && d.len() >= m * n);
    if let Some(w) = &wide {
        assert!(w.len() >= m * n);
    }
    if model.frac_bits + model.extra_bits > 28 {
        for r in 0..m {
            let w_row = wide.as_deref_mut().map(|w| &mut w[r * n..(r + 1) * n]);
            reference_row(
                model,
                t,
                r,
                &c[r * n..(r + 1) * n],
                &mut d[r * n..(r + 1) * n],
                w_row,
            );
        }
        return;
    }
    SCRATCH.with(|s| {
        let s = &mut *s.borrow_mut();
        prepare(model, t, s);
        for r in 0..m {
            let a_row = &t.a[r * k..(r + 1) * k];
            let (c_row, d_row) = (&c[r * n..(r + 1) * n], &mut d[r * n..(r + 1) * n]);
            let w_row = wide.as_deref_mut().map(|w| &mut w[r * n..(r + 1) * n]);
            if a_row.iter().any(|x| !x.is_finite()) || k == 0 {
                reference_row(model, t, r, c_row, d_row, w_row);
                continue;
            }
            row(model, t, r, s, c_row, d_row, w_row);
        }
    });
}

/// Whether [`dot_tile_f32`] is the faster way to compute a tile under `model`: under the
/// exponent-sum model (sm_90 and later), whose per-element path shifts every product as a
/// 128-bit integer; not under the leading-bit model, whose per-element path
/// ([`super::dot_f32`]'s binary64 scaling of fixed-size blocks) is already short: the 512³
/// Triton matmul at sm_80 (`mma.sync.m16n8k16`, tiles of 16 × 8) took 0.36 s of CPU element
/// by element and 0.47 s by tiles (`cargo bench -p emu --bench triton_kernels`). Either path
/// gives the same bits.
pub fn tile_pays(model: &AccModel) -> bool {
    matches!(model.align, Align::ExponentSum { .. })
}

/// The per-operand work: element exponents and the columns of B that are not finite.
fn prepare(model: &AccModel, t: &TileOperands<'_>, s: &mut Scratch) {
    let (n, k) = (t.n, t.k);
    s.bad_col.clear();
    s.bad_col.resize(n, false);
    for kk in 0..k {
        for (j, x) in t.b[kk * n..(kk + 1) * n].iter().enumerate() {
            s.bad_col[j] |= !x.is_finite();
        }
    }
    if let Align::ExponentSum { input_emin } = model.align {
        let exp = |x: &f64| {
            if *x == 0.0 || !x.is_finite() {
                NONE
            } else {
                leading_exponent(*x).max(input_emin)
            }
        };
        s.ea.clear();
        s.ea.extend(t.a[..t.m * k].iter().map(exp));
        s.eb.clear();
        s.eb.extend(t.b[..k * n].iter().map(exp));
    }
    for v in [&mut s.sum, &mut s.scale] {
        v.clear();
        v.resize(n, 0.0);
    }
    s.emax.clear();
    s.emax.resize(n, 0);
    s.acc.clear();
    s.acc.resize(n, 0.0);
}

/// Row `r` by the per-element reference.
fn reference_row(
    model: &AccModel,
    t: &TileOperands<'_>,
    r: usize,
    c_row: &[f32],
    d_row: &mut [f32],
    mut w_row: Option<&mut [f64]>,
) {
    for j in 0..t.n {
        let (v, w) = reference(model, t, r, j, c_row[j]);
        d_row[j] = v;
        if let Some(wr) = w_row.as_deref_mut() {
            wr[j] = w;
        }
    }
}

/// Element `(r, j)` by [`dot_f32`] and [`dot_f32_wide`].
fn reference(model: &AccModel, t: &TileOperands<'_>, r: usize, j: usize, c: f32) -> (f32, f64) {
    let a = &t.a[r * t.k..(r + 1) * t.k];
    let b: Vec<f64> = (0..t.k).map(|kk| t.b[kk * t.n + j]).collect();
    (dot_f32(model, a, &b, c), dot_f32_wide(model, a, &b, c))
}

/// Row `r` of D, every column together; columns with a non-finite C or B, or whose
/// accumulator overflows, fall back to the reference.
fn row(
    model: &AccModel,
    t: &TileOperands<'_>,
    r: usize,
    s: &mut Scratch,
    c_row: &[f32],
    d_row: &mut [f32],
    mut w_row: Option<&mut [f64]>,
) {
    let (n, k) = (t.n, t.k);
    let width = (model.frac_bits + model.extra_bits) as i32;
    s.acc.copy_from_slice(c_row);
    let exponent_sum = matches!(model.align, Align::ExponentSum { .. });
    // The widened sum of the last block (exponent-sum model), NaN where it is zero (the
    // reference's None); `C` itself before any block.
    let mut wide_last: Option<&mut [f64]> = w_row.as_deref_mut();
    if let Some(w) = wide_last.as_deref_mut() {
        for (w, c) in w.iter_mut().zip(c_row) {
            *w = if *c != 0.0 { f64::from(*c) } else { f64::NAN };
        }
    }
    let block = model.block.max(1);
    let mut k0 = 0;
    while k0 < k {
        let k1 = (k0 + block).min(k);
        if exponent_sum {
            block_exponent_sum(t, r, (k0, k1), width, s, wide_last.as_deref_mut());
        } else {
            block_leading(model, t, r, (k0, k1), width, s);
        }
        k0 = k1;
    }
    for j in 0..n {
        // An accumulator that overflowed to infinity takes the reference's path for the
        // blocks after (it aligns the other terms to the infinity's encoding).
        let bad = s.bad_col[j] || !c_row[j].is_finite() || !s.acc[j].is_finite();
        if bad {
            let (v, w) = reference(model, t, r, j, c_row[j]);
            d_row[j] = v;
            if let Some(wr) = w_row.as_deref_mut() {
                wr[j] = w;
            }
            continue;
        }
        d_row[j] = s.acc[j];
        if let Some(wr) = w_row.as_deref_mut() {
            if !exponent_sum || wr[j].is_nan() {
                wr[j] = f64::from(s.acc[j]);
            }
        }
    }
}

/// One block `[k0, k1)` of row `r` under the exponent-sum model ([`super::Align::ExponentSum`]),
/// as `dot_exponent_sum` computes it per element: the terms aligned to the largest exponent
/// sum (and the accumulator's exponent), truncated below `2^(e_max - width)`.
fn block_exponent_sum(
    t: &TileOperands<'_>,
    r: usize,
    (k0, k1): (usize, usize),
    width: i32,
    s: &mut Scratch,
    wide: Option<&mut [f64]>,
) {
    let (n, k) = (t.n, t.k);
    let ea = &s.ea[r * k..(r + 1) * k];
    let emax = &mut s.emax[..n];
    // The accumulator's exponent: binary32's, a subnormal counting as -126.
    for (e, acc) in emax.iter_mut().zip(&s.acc) {
        let f = ((acc.to_bits() >> 23) & 0xFF) as i32;
        *e = if *acc == 0.0 {
            NONE
        } else {
            (f - 127).max(-126)
        };
    }
    for (kk, &e_a) in ea.iter().enumerate().take(k1).skip(k0) {
        if e_a == NONE {
            continue;
        }
        max_sums(emax, e_a, &s.eb[kk * n..(kk + 1) * n]);
    }
    let (sum, scale) = (&mut s.sum[..n], &mut s.scale[..n]);
    for ((sc, e), (sm, acc)) in scale
        .iter_mut()
        .zip(emax.iter())
        .zip(sum.iter_mut().zip(&s.acc))
    {
        // 2^-(e - width); e is far inside binary64's range (|e| < 600) or NONE (no term).
        *sc = pow2((width - e).clamp(-1000, 1000));
        *sm = trunc_scaled(f64::from(*acc), *sc);
    }
    for kk in k0..k1 {
        let x = t.a[r * k + kk];
        if x == 0.0 {
            continue;
        }
        add_scaled(sum, x, &t.b[kk * n..(kk + 1) * n], scale);
    }
    let mut wide = wide;
    for j in 0..n {
        let e = s.emax[j];
        if e < NONE / 2 {
            // No nonzero term: the sign of an exact zero sum.
            let mut all_neg = s.acc[j].is_sign_negative();
            for kk in k0..k1 {
                all_neg &= (t.a[r * k + kk] * t.b[kk * n + j]).is_sign_negative();
            }
            s.acc[j] = if all_neg { -0.0 } else { 0.0 };
            if let Some(w) = wide.as_deref_mut() {
                w[j] = f64::NAN;
            }
            continue;
        }
        let v = s.sum[j] * pow2(e - width);
        s.acc[j] = f64_to_f32_rz(v);
        if let Some(w) = wide.as_deref_mut() {
            w[j] = if s.sum[j] == 0.0 { f64::NAN } else { v };
        }
    }
}

/// One block `[k0, k1)` of row `r` under Fasi et al.'s model ([`super::Align::Leading`]), as
/// `dot_f32` computes it per element: the terms aligned to the leading bit of the largest.
fn block_leading(
    model: &AccModel,
    t: &TileOperands<'_>,
    r: usize,
    (k0, k1): (usize, usize),
    width: i32,
    s: &mut Scratch,
) {
    // A column whose B or accumulator is not finite is recomputed by the reference; it is
    // only kept away from `block_sum` here.
    let (n, k) = (t.n, t.k);
    let len = k1 - k0;
    s.prod.clear();
    s.prod.resize(len * n, 0.0);
    let emax = &mut s.emax[..n];
    for (e, acc) in emax.iter_mut().zip(&s.acc) {
        *e = field(f64::from(*acc)) as i32;
    }
    for (i, kk) in (k0..k1).enumerate() {
        let x = t.a[r * k + kk];
        let p = &mut s.prod[i * n..(i + 1) * n];
        products_and_fields(p, emax, x, &t.b[kk * n..(kk + 1) * n]);
    }
    let (sum, scale) = (&mut s.sum[..n], &mut s.scale[..n]);
    for ((sc, e), (sm, acc)) in scale
        .iter_mut()
        .zip(emax.iter())
        .zip(sum.iter_mut().zip(&s.acc))
    {
        // 2^-q with q = e - 1023 - width; a column outside the scalable range is redone below.
        *sc = pow2((1023 + width - e).clamp(-1000, 1000));
        *sm = trunc_scaled(f64::from(*acc), *sc);
    }
    for i in 0..len {
        add_products_scaled(sum, &s.prod[i * n..(i + 1) * n], scale);
    }
    for j in 0..n {
        let e_field = s.emax[j];
        // `scalable` of the reference: width <= 40 and the field in 64..=1800.
        if width > 40 || !(64..=1800).contains(&e_field) {
            if s.bad_col[j] || !s.acc[j].is_finite() {
                continue;
            }
            let p: Vec<f64> = (0..len).map(|i| s.prod[i * n + j]).collect();
            s.acc[j] = block_sum(model, &p, s.acc[j]);
            continue;
        }
        s.acc[j] = if s.sum[j] == 0.0 {
            0.0
        } else {
            f64_to_f32_rz(s.sum[j] * pow2(e_field - 1023 - width))
        };
    }
}

/// `t · scale` truncated toward zero, exactly: every aligned term of a fast-path element is
/// below `2^(width + 2)` ([`dot_tile_f32`] takes the fast path only for `width <= 28`), an
/// integer part binary64 holds. A column whose inputs are not finite gets an infinity or NaN
/// here and its reference result later.
#[inline(always)]
fn trunc_scaled(t: f64, scale: f64) -> f64 {
    // `trunc` vectorises to one rounding instruction (`vroundpd`); a saturating `as i32` needs
    // compares and blends around the conversion.
    (t * scale).trunc()
}

// The loops the CPU-specific paths recompile: each is one straight pass over a row of
// columns, written so that the compiler vectorises it.

#[inline(always)]
fn max_sums_impl(emax: &mut [i32], e_a: i32, eb: &[i32]) {
    for (m, e) in emax.iter_mut().zip(eb) {
        *m = (*m).max(e_a + e);
    }
}

#[inline(always)]
fn add_scaled_impl(sum: &mut [f64], x: f64, b: &[f64], scale: &[f64]) {
    for ((s, y), sc) in sum.iter_mut().zip(b).zip(scale) {
        *s += trunc_scaled(x * y, *sc);
    }
}

#[inline(always)]
fn products_and_fields_impl(p: &mut [f64], emax: &mut [i32], x: f64, b: &[f64]) {
    for ((p, e), y) in p.iter_mut().zip(emax.iter_mut()).zip(b) {
        *p = x * y;
        *e = (*e).max(field(*p) as i32);
    }
}

#[inline(always)]
fn add_products_scaled_impl(sum: &mut [f64], p: &[f64], scale: &[f64]) {
    for ((s, p), sc) in sum.iter_mut().zip(p).zip(scale) {
        *s += trunc_scaled(*p, *sc);
    }
}

/// Which compilation of the loops this CPU runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Isa {
    Generic,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

fn isa() -> Isa {
    use std::sync::OnceLock;
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512dq")
                && std::arch::is_x86_feature_detected!("avx512vl")
            {
                return Isa::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                return Isa::Avx2;
            }
        }
        Isa::Generic
    })
}

/// Defines `$name`, which runs `$imp` compiled for the best instruction set the CPU has.
macro_rules! dispatch {
    ($name:ident, $imp:ident, ($($arg:ident: $ty:ty),*)) => {
        #[inline]
        fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                unsafe fn avx2($($arg: $ty),*) {
                    $imp($($arg),*)
                }
                #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
                unsafe fn avx512($($arg: $ty),*) {
                    $imp($($arg),*)
                }
                match isa() {
                    // SAFETY: the CPU has the features (`isa` checked them at run time).
                    Isa::Avx512 => return unsafe { avx512($($arg),*) },
                    // SAFETY: as above.
                    Isa::Avx2 => return unsafe { avx2($($arg),*) },
                    Isa::Generic => {}
                }
            }
            $imp($($arg),*)
        }
    };
}

dispatch!(max_sums, max_sums_impl, (emax: &mut [i32], e_a: i32, eb: &[i32]));
dispatch!(add_scaled, add_scaled_impl, (sum: &mut [f64], x: f64, b: &[f64], scale: &[f64]));
dispatch!(
    products_and_fields,
    products_and_fields_impl,
    (p: &mut [f64], emax: &mut [i32], x: f64, b: &[f64])
);
dispatch!(add_products_scaled, add_products_scaled_impl, (sum: &mut [f64], p: &[f64], scale: &[f64]));

#[cfg(test)]
#[path = "mma_tile_tests.rs"]
mod tests;
