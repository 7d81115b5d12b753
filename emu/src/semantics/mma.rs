//! The arithmetic of one `mma` dot product (PTX ISA "Warp Level Matrix Multiply-Accumulate
//! Instructions": `d = c + Σ a_k·b_k` for each element of D).
//!
//! Integer forms are exact: the sum is taken in full and wraps to 32 bits, or with
//! `.satfinite` clamps to the `.s32` range. Single-bit forms count the ones of `a AND b` or
//! `a XOR b` (`.popc`) and add them like the integer forms.
//!
//! Floating-point forms with `.f16`, `.bf16`, `.tf32`, `.e4m3` or `.e5m2` inputs follow the
//! model of the tensor cores' accumulation that Fasi, Higham, Mikaitis and Pranesh measured on
//! V100, T4 and A100 ("Numerical behavior of NVIDIA tensor cores", PeerJ Computer Science
//! 7:e330, 2021, doi:10.7717/peerj-cs.330, and its test suite
//! github.com/north-numerical-computing/tensor-cores-numerical-behavior), which Khattak and
//! Mikaitis extend to H100 and B200 ("Accurate Models of NVIDIA Tensor Cores", arXiv:2512.07004,
//! 2025):
//!
//! 1. every product `a_k·b_k` is exact (it is computed here in f64, where it always fits);
//! 2. the products of one block of `block` consecutive k and the running accumulator (C for the
//!    first block) are aligned to the largest exponent among them; bits below
//!    `2^(e_max − frac_bits − extra_bits)` are dropped (truncation, i.e. toward zero, term by
//!    term: there are no guard, round or sticky bits);
//! 3. the aligned terms are added exactly, without normalising in between (carries out of the
//!    leading bit are all kept: the suite's case whose sum needs a third carry bit gives 8
//!    exactly);
//! 4. the sum is normalised to binary32 by truncation (round toward zero), which becomes the
//!    accumulator of the next block;
//! 5. a `.f16` D is the final binary32 value rounded to nearest even.
//!
//! The per-architecture parameters are in [`AccModel::for_target`]. `.f64` forms are IEEE:
//! a chain of fused multiply-adds in k order, rounded to nearest.
//!
//! Deliberate deviations and choices:
//! 1. NaN and infinity: when any input or product is not finite, the result is the IEEE sum of
//!    the exact products and C (an invalid operation gives the canonical NaN 0x7FFFFFFF).
//! 2. Overflow of the binary32 accumulator gives an infinity of the sign (round toward zero
//!    would give the largest finite value; the measurements do not cover overflow).
//! 3. sm_90 and later (H100) align `.f16`/`.bf16`/`.tf32` blocks of 16 products to the
//!    largest exponent sum with two extra bits ([`AccModel::for_target`]): measured bit for
//!    bit on an H100 with `ptxemu difftest --record`, in line with the wider blocks and extra
//!    alignment bits Khattak and Mikaitis report. sm_100 (B200) takes the H100 parameters
//!    unmeasured. FP8 tensor cores (sm_89 and later) keep 13 fraction bits in the
//!    accumulator, as DeepSeek-AI report for H800 ("DeepSeek-V3 Technical Report",
//!    arXiv:2412.19437, section 3.3.2: about 14 bits of accumulation precision); unmeasured.
//! 4. The forms the compiler lowers to other instructions (`mma.sync.m8n8k4` with `.f16`
//!    inputs on sm_80 and later, FP8 `mma.sync` on sm_90) follow that lowering instead:
//!    [`super::mma_sync`].

/// The parameters of the accumulation model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccModel {
    /// Products added in one step together with the accumulator.
    pub block: usize,
    /// Fraction bits of the aligned sum below the leading bit of the largest term (23 for a
    /// binary32 accumulator).
    pub frac_bits: u32,
    /// Extra alignment bits kept below those.
    pub extra_bits: u32,
    /// Which exponent a block's terms are aligned to.
    pub align: Align,
}

/// The exponent `e_max` that the terms of a block are aligned to: bits below
/// `2^(e_max − frac_bits − extra_bits)` are dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// The leading bit of the largest term, product or accumulator (Fasi et al.'s model).
    Leading,
    /// The largest of the products' exponent sums `e_a + e_b` (a product's significand lies in
    /// [1, 4), so its leading bit may be one higher) and the accumulator's exponent (H100,
    /// measured; see [`AccModel::for_target`]). A subnormal input counts with its format's
    /// smallest normal exponent `input_emin`, a subnormal accumulator with binary32's (−126).
    ExponentSum {
        /// The smallest normal exponent of the input format (−14 for binary16, −126 for
        /// bfloat16 and TF32).
        input_emin: i32,
    },
}

/// The floating-point input formats of `mma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaInput {
    /// binary16
    F16,
    /// bfloat16
    Bf16,
    /// TensorFloat-32
    Tf32,
    /// FP8 (e4m3 or e5m2)
    Fp8,
}

impl AccModel {
    /// The model of the GPU `sm_<sm>` for inputs of format `input`.
    ///
    /// sm_90 and later (H100, measured bit for bit with `ptxemu difftest --record` on an
    /// H100 80GB HBM3, see `litmus/hardware/nvidia-h100/numerics/`): `.f16`, `.bf16` and
    /// `.tf32` products are added in blocks of 16 (every k of one `HMMA`), aligned to the
    /// largest exponent sum ([`Align::ExponentSum`]) with 25 bits kept below it, truncated,
    /// and the block sum normalised to binary32 by truncation. FP8 keeps the DeepSeek figure
    /// (13 fraction bits, one block of 32) for the instructions that have FP8 tensor cores;
    /// `mma.sync` with FP8 on sm_90 runs as two f16 multiplies instead (see
    /// [`super::mma_sync`]).
    pub fn for_target(sm: u32, input: MmaInput) -> AccModel {
        if sm >= 90 && input != MmaInput::Fp8 {
            let input_emin = if input == MmaInput::F16 { -14 } else { -126 };
            return AccModel {
                block: 16,
                frac_bits: 23,
                extra_bits: 2,
                align: Align::ExponentSum { input_emin },
            };
        }
        let block = match (sm, input) {
            // V100 and T4: blocks of four products (Fasi et al.).
            (..=79, _) => 4,
            // A100: eight binary16/bfloat16 products, four tf32 ones, per step (as ptxemu reads
            // Fasi et al.'s A100 results; not confirmed on hardware by ptxemu).
            (_, MmaInput::F16 | MmaInput::Bf16) => 8,
            (_, MmaInput::Tf32) => 4,
            (_, MmaInput::Fp8) => 32,
        };
        let frac_bits = match input {
            MmaInput::Fp8 => 13,
            MmaInput::F16 | MmaInput::Bf16 | MmaInput::Tf32 => 23,
        };
        AccModel {
            block,
            frac_bits,
            extra_bits: 0,
            align: Align::Leading,
        }
    }
}

/// `(mantissa, exponent)` with `x = mantissa · 2^exponent` exactly, for a finite nonzero f64.
fn decompose(x: f64) -> (i128, i32) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7FF) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (m, e) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp - 1075)
    };
    let m = i128::from(m);
    (if x < 0.0 { -m } else { m }, e)
}

/// The exponent of the leading bit of a finite nonzero f64 (`floor(log2 |x|)`).
fn leading_exponent(x: f64) -> i32 {
    let (m, e) = decompose(x);
    e + (127 - m.unsigned_abs().leading_zeros() as i32)
}

/// `m · 2^sh`, truncated toward zero when `sh` is negative.
fn shift_trunc(m: i128, sh: i32) -> i128 {
    if sh >= 0 {
        m << sh.min(100)
    } else if sh <= -127 {
        0
    } else {
        let mag = m.unsigned_abs() >> (-sh) as u32;
        let mag = mag as i128;
        if m < 0 {
            -mag
        } else {
            mag
        }
    }
}

/// `s · 2^q` as a binary32, truncated toward zero; an infinity when out of range.
pub fn to_f32_rz(s: i128, q: i32) -> f32 {
    if s == 0 {
        return 0.0;
    }
    let neg = s < 0;
    let mag = s.unsigned_abs();
    let lead = 127 - mag.leading_zeros() as i32 + q; // exponent of the leading bit
    let sign = |x: f32| if neg { -x } else { x };
    if lead > 127 {
        return sign(f32::INFINITY);
    }
    // The lowest bit binary32 keeps at this exponent (subnormals stop at 2^-149).
    let low = (lead - 23).max(-149);
    let kept = if low > q {
        mag >> (low - q) as u32
    } else {
        mag << (q - low) as u32
    };
    // kept · 2^low, with kept < 2^24: exact in f64, and so in f32.
    let v = (kept as f64) * 2f64.powi(low);
    sign(v as f32)
}

/// One block: `c + Σ p_k` with the alignment and truncation of `model`.
fn block_sum(model: &AccModel, products: &[f64], c: f32) -> f32 {
    let c64 = f64::from(c);
    let terms = products.iter().copied().chain(std::iter::once(c64));
    let e_max = terms
        .clone()
        .filter(|t| *t != 0.0)
        .map(leading_exponent)
        .max();
    let Some(e_max) = e_max else {
        // All zero: the sign of an exact zero sum (−0 only when every term is −0).
        let all_neg = products.iter().all(|p| p.is_sign_negative()) && c.is_sign_negative();
        return if all_neg { -0.0 } else { 0.0 };
    };
    let q = e_max - model.frac_bits as i32 - model.extra_bits as i32;
    let mut sum: i128 = 0;
    for t in terms.filter(|t| *t != 0.0) {
        let (m, e) = decompose(t);
        sum += shift_trunc(m, e - q);
    }
    to_f32_rz(sum, q)
}

/// The biased exponent field of a binary64 value (0 for zeros and subnormals, 0x7FF for
/// infinities and NaNs).
#[inline(always)]
fn field(x: f64) -> u64 {
    (x.to_bits() >> 52) & 0x7FF
}

/// `2^e` for `-1022 <= e <= 1023`.
#[inline(always)]
fn pow2(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}

/// One block of the exact products `p` by scaling in binary64, for a block whose largest term
/// has the binary64 exponent field `e_field`, in `64..=1800`, and a model no wider than 40
/// bits. Each term times `2^-q` is then exact (a power-of-two scaling in range, or a value
/// below 1 that truncates to zero anyway), and truncating it toward zero is the model's
/// alignment. The truncated terms are integers below `2^(frac + extra + 1) <= 2^41` in
/// magnitude, so they and every partial sum of a block (at most 2^45) are exact in binary64:
/// the sum is the integer sum, in any order, and the loop vectorises (`trunc` is one
/// instruction from SSE4.1 on, where a conversion to an integer is not, before AVX-512).
#[inline(always)]
fn block_sum_scaled(width: i32, e_field: u64, p: impl Iterator<Item = f64>, c: f32) -> f32 {
    let q = e_field as i32 - 1023 - width;
    let scale = pow2(-q);
    debug_assert!(width <= 40);
    let mut sum = (f64::from(c) * scale).trunc();
    for x in p {
        sum += (x * scale).trunc();
    }
    scaled_sum_to_f32(sum, q)
}

/// [`block_sum_scaled`] for a whole block of `B` products (a power of two): the terms summed
/// as a tree, which the compiler turns into vector additions (exact, as argued there, so the
/// order cannot change the sum).
#[inline(always)]
fn block_sum_scaled_fixed<const B: usize>(width: i32, e_field: u64, p: &[f64; B], c: f32) -> f32 {
    let q = e_field as i32 - 1023 - width;
    let scale = pow2(-q);
    debug_assert!(width <= 40 && B.is_power_of_two());
    let mut t: [f64; B] = std::array::from_fn(|j| (p[j] * scale).trunc());
    let mut n = B;
    while n > 1 {
        n /= 2;
        for j in 0..n {
            t[j] += t[j + n];
        }
    }
    scaled_sum_to_f32(t[0] + (f64::from(c) * scale).trunc(), q)
}

/// The binary32 value, rounded toward zero, of an exact block sum `sum · 2^q`.
#[inline(always)]
fn scaled_sum_to_f32(sum: f64, q: i32) -> f32 {
    if sum == 0.0 {
        return 0.0;
    }
    // |sum| < 2^47 and q is well inside the normal range: exact.
    f64_to_f32_rz(sum * pow2(q))
}

/// Whether [`block_sum_scaled`] applies to a block with largest exponent field `e_field`.
#[inline(always)]
fn scalable(width: i32, e_field: u64) -> bool {
    width <= 40 && (64..=1800).contains(&e_field)
}

/// [`dot_f32`] for finite `c` and `k` a multiple of the block `B`, with fixed-size blocks the
/// compiler unrolls; `None` when a product is not finite.
#[inline(always)]
fn dot_blocks<const B: usize>(model: &AccModel, a: &[f64], b: &[f64], c: f32) -> Option<f32> {
    let width = (model.frac_bits + model.extra_bits) as i32;
    let mut acc = c;
    for (ca, cb) in a.chunks_exact(B).zip(b.chunks_exact(B)) {
        let mut p = [0f64; B];
        let mut pf = 0;
        for j in 0..B {
            p[j] = ca[j] * cb[j];
            pf = pf.max(field(p[j]));
        }
        if pf == 0x7FF {
            return None;
        }
        let e_field = pf.max(field(f64::from(acc)));
        acc = if scalable(width, e_field) {
            block_sum_scaled_fixed(width, e_field, &p, acc)
        } else {
            block_sum(model, &p, acc)
        };
    }
    Some(acc)
}

/// A binary64 value rounded toward zero to binary32 (an infinity from 2^128 on).
fn f64_to_f32_rz(v: f64) -> f32 {
    if v.abs() >= pow2(128) {
        return if v < 0.0 {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        };
    }
    let r = v as f32;
    if f64::from(r).abs() > v.abs() {
        // Rounded away from zero: the neighbour toward zero (magnitude bits minus one).
        f32::from_bits(r.to_bits() - 1)
    } else {
        r
    }
}

/// `c + Σ a_k·b_k` for finite or non-finite inputs widened exactly to f64, under `model`.
pub fn dot_f32(model: &AccModel, a: &[f64], b: &[f64], c: f32) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let all = || -> Vec<f64> { a.iter().zip(b).map(|(x, y)| x * y).collect() };
    if !c.is_finite() {
        return dot_products(model, &all(), c);
    }
    if let Align::ExponentSum { input_emin } = model.align {
        return match dot_exponent_sum(model, input_emin, a, b, c) {
            Some((acc, _)) => acc,
            None => dot_products(model, &all(), c),
        };
    }
    let fixed = match model.block {
        8 if n.is_multiple_of(8) => Some(dot_blocks::<8>(model, a, b, c)),
        4 if n.is_multiple_of(4) => Some(dot_blocks::<4>(model, a, b, c)),
        _ => None,
    };
    match fixed {
        Some(Some(v)) => return v,
        // A product is not finite: the reference's IEEE sum of everything.
        Some(None) => return dot_products(model, &all(), c),
        None => {}
    }
    let width = (model.frac_bits + model.extra_bits) as i32;
    let mut acc = c;
    for (ba, bb) in a
        .chunks(model.block.max(1))
        .zip(b.chunks(model.block.max(1)))
    {
        let products = ba.iter().zip(bb).map(|(x, y)| x * y);
        let pf = products.clone().fold(0, |m, p| m.max(field(p)));
        if pf == 0x7FF {
            return dot_products(model, &all(), c);
        }
        let e_field = pf.max(field(f64::from(acc)));
        acc = if scalable(width, e_field) {
            block_sum_scaled(width, e_field, products, acc)
        } else {
            block_sum(model, &products.collect::<Vec<_>>(), acc)
        };
    }
    acc
}

/// `c + Σ a_k·b_k` as it stands before the final normalisation to binary32, for the result
/// of an `.f16` D: under [`Align::ExponentSum`] the last block's aligned sum, exactly (the
/// H100 rounds that to binary16 directly: measured), otherwise the binary32 result.
pub fn dot_f32_wide(model: &AccModel, a: &[f64], b: &[f64], c: f32) -> f64 {
    if let Align::ExponentSum { input_emin } = model.align {
        if c.is_finite() {
            if let Some((acc, wide)) = dot_exponent_sum(model, input_emin, a, b, c) {
                return wide.unwrap_or(f64::from(acc));
            }
        }
    }
    f64::from(dot_f32(model, a, b, c))
}

/// [`dot_f32`] under [`Align::ExponentSum`] for finite `c`: the binary32 result and the last
/// block's nonzero aligned sum exactly (`None` when it is zero: the result is the signed
/// zero); `None` when a product is not finite.
fn dot_exponent_sum(
    model: &AccModel,
    input_emin: i32,
    a: &[f64],
    b: &[f64],
    c: f32,
) -> Option<(f32, Option<f64>)> {
    let width = (model.frac_bits + model.extra_bits) as i32;
    let block = model.block.max(1);
    let mut acc = c;
    let mut wide = (c != 0.0).then_some(f64::from(c));
    for (ba, bb) in a.chunks(block).zip(b.chunks(block)) {
        let exp = |x: f64| leading_exponent(x).max(input_emin);
        let mut e_max = (acc != 0.0).then(|| leading_exponent(f64::from(acc)).max(-126));
        let mut all_neg = acc.is_sign_negative();
        for (x, y) in ba.iter().zip(bb) {
            let p = x * y;
            if !p.is_finite() {
                return None;
            }
            all_neg &= p.is_sign_negative();
            if p != 0.0 {
                let e = exp(*x) + exp(*y);
                e_max = Some(e_max.map_or(e, |m| m.max(e)));
            }
        }
        let Some(e_max) = e_max else {
            acc = if all_neg { -0.0 } else { 0.0 };
            wide = None;
            continue;
        };
        let q = e_max - width;
        let mut sum: i128 = 0;
        let terms = ba.iter().zip(bb).map(|(x, y)| x * y);
        for t in terms.chain(std::iter::once(f64::from(acc))) {
            if t != 0.0 {
                let (m, e) = decompose(t);
                sum += shift_trunc(m, e - q);
            }
        }
        acc = to_f32_rz(sum, q);
        // |sum| < 2^(width + 6) and q is far inside binary64's range: exact.
        wide = (sum != 0).then(|| sum as f64 * 2f64.powi(q));
    }
    Some((acc, wide))
}

/// `c + Σ p_k` of the exact products `p_k` under `model` (the reference path of [`dot_f32`]).
fn dot_products(model: &AccModel, products: &[f64], c: f32) -> f32 {
    if !c.is_finite() || products.iter().any(|p| !p.is_finite()) {
        let s = products.iter().fold(f64::from(c), |acc, p| acc + p);
        return if s.is_nan() {
            f32::from_bits(0x7FFF_FFFF)
        } else {
            s as f32
        };
    }
    let mut acc = c;
    for chunk in products.chunks(model.block.max(1)) {
        acc = block_sum(model, chunk, acc);
    }
    acc
}

/// `c + Σ a_k·b_k` in binary64: fused multiply-adds in k order, rounded to nearest.
pub fn dot_f64(a: &[f64], b: &[f64], c: f64) -> f64 {
    a.iter().zip(b).fold(c, |acc, (x, y)| x.mul_add(*y, acc))
}

/// `c + Σ a_k·b_k` of integers: wrapped to 32 bits, or clamped with `.satfinite`.
pub fn dot_int(a: &[i64], b: &[i64], c: i32, satfinite: bool) -> i32 {
    let s: i64 = a.iter().zip(b).map(|(x, y)| x * y).sum::<i64>() + i64::from(c);
    if satfinite {
        s.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
    } else {
        s as i32
    }
}

#[path = "mma_tile.rs"]
pub mod tile;

#[path = "mma_leading_rows.rs"]
pub mod leading_rows;

#[path = "mma_exponent_sum_rows.rs"]
pub mod exponent_sum_rows;

#[cfg(test)]
#[path = "mma_rows_test_inputs.rs"]
mod rows_test_inputs;

#[cfg(test)]
#[path = "mma_tests.rs"]
mod tests;
