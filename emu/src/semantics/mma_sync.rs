//! The arithmetic of the `mma.sync` forms that the compiler lowers to other instructions
//! instead of one tensor-core multiply, as `ptxas` 13 does (read from its SASS, `cuobjdump
//! -sass`, and measured bit for bit on an H100 with `ptxemu difftest --record`):
//!
//! 1. `mma.sync.aligned.m8n8k4` with `.f16` inputs on sm_80 and later (there is no `HMMA.884`
//!    after Volta): every element of D is computed by binary32 fused multiply-adds, rounded to
//!    nearest even ([`dot_m8n8k4_f32`], [`dot_m8n8k4_f16`]).
//! 2. FP8 (`.e4m3`/`.e5m2`) `mma.sync.aligned.m16n8k32` on sm_90: the FP8 elements are widened
//!    to binary16 (exactly) and multiplied by two f16 `HMMA.16816.F32` with a zero accumulator,
//!    the first over the k with `k mod 4` in {0, 1}, the second over the others onto the
//!    first's result; C is added last by one binary32 addition ([`dot_fp8_as_f16`]).
//!
//! NaN results are the canonical NaN 0x7FFFFFFF, as the GPU's binary32 arithmetic gives.

use super::mma::{dot_f32, AccModel};

/// The canonical NaN for a NaN result.
fn canon(x: f32) -> f32 {
    if x.is_nan() {
        f32::from_bits(0x7FFF_FFFF)
    } else {
        x
    }
}

/// `fma(a, b, c)` in binary32, rounded once to nearest even, for binary16 `a` and `b`
/// widened exactly: the product is exact in binary64, the sum's rounding error is kept
/// exactly (two-sum), and the pair is rounded once to binary32.
fn fma32(a: f64, b: f64, c: f32) -> f32 {
    let p = a * b; // exact: two 11-bit significands
                   // p + c exactly: both are binary64 values whose exact sum may need more than 53 bits only
                   // when their exponents are far apart, in which case two-sum keeps the error exactly.
    let c = f64::from(c);
    let s = p + c;
    let bp = s - c;
    let err = (p - bp) + (c - (s - bp));
    round_sum_to_f32(s, err)
}

/// `s + err` (with `|err|` at most half an ulp of `s`, the exact sum of two binary64 values)
/// rounded once to binary32, to nearest even.
fn round_sum_to_f32(s: f64, err: f64) -> f32 {
    let r = s as f32;
    if err == 0.0 || !r.is_finite() {
        return r;
    }
    // `s` rounded to binary32 is `r`; the exact value `s + err` can round differently only
    // when `s` lies exactly halfway between two binary32 neighbours.
    let rd = f64::from(r);
    let (lo, hi) = if rd <= s {
        (r, f32::from_bits(step_up(r)))
    } else {
        (f32::from_bits(step_down(r)), r)
    };
    let mid = (f64::from(lo) + f64::from(hi)) / 2.0;
    if s != mid {
        return r;
    }
    if err > 0.0 {
        hi
    } else {
        lo
    }
}

/// The binary32 neighbour above `x` (toward +∞).
fn step_up(x: f32) -> u32 {
    let b = x.to_bits();
    if x == 0.0 {
        1
    } else if x > 0.0 {
        b + 1
    } else {
        b - 1
    }
}

/// The binary32 neighbour below `x` (toward −∞).
fn step_down(x: f32) -> u32 {
    let b = x.to_bits();
    if x == 0.0 {
        0x8000_0001
    } else if x > 0.0 {
        b - 1
    } else {
        b + 1
    }
}

/// One element of `mma.sync.m8n8k4` with `.f16` inputs and a `.f32` D on sm_80 and later:
/// `((((0 + a0·b0) + a1·b1) + a2·b2) + a3·b3)` by fused multiply-adds, then `+ c`.
pub fn dot_m8n8k4_f32(a: &[f64], b: &[f64], c: f32) -> f32 {
    let mut acc = 0f32;
    for (x, y) in a.iter().zip(b) {
        acc = fma32(*x, *y, acc);
    }
    canon(acc + c)
}

/// One element of `mma.sync.m8n8k4` with `.f16` inputs and a `.f16` D (before its rounding to
/// binary16) on sm_80 and later: `(c + (a0·b0 + a1·b1)) + (a2·b2 + a3·b3)`, each pair a
/// product and a fused multiply-add, the sums binary32 additions.
pub fn dot_m8n8k4_f16(a: &[f64], b: &[f64], c: f32) -> f32 {
    let pair = |i: usize| -> f32 {
        let (x, y) = (
            a.get(i).copied().unwrap_or(0.0),
            b.get(i).copied().unwrap_or(0.0),
        );
        let p = (x * y) as f32; // exact
        fma32(
            a.get(i + 1).copied().unwrap_or(0.0),
            b.get(i + 1).copied().unwrap_or(0.0),
            p,
        )
    };
    canon((c + pair(0)) + pair(2))
}

/// One element of FP8 `mma.sync.m16n8k32` on sm_90 (`model`: the GPU's f16 model): two f16
/// multiplies from zero over the k with `k mod 4` in {0, 1} and then the others, and C added
/// last in binary32 (rounded to nearest even).
pub fn dot_fp8_as_f16(model: &AccModel, a: &[f64], b: &[f64], c: f32) -> f32 {
    let half = |first: bool| -> (Vec<f64>, Vec<f64>) {
        a.iter()
            .zip(b)
            .enumerate()
            .filter(|(k, _)| (k % 4 < 2) == first)
            .map(|(_, (x, y))| (*x, *y))
            .unzip()
    };
    let (a1, b1) = half(true);
    let (a2, b2) = half(false);
    let acc = dot_f32(model, &a1, &b1, 0.0);
    let acc = dot_f32(model, &a2, &b2, acc);
    canon(c + acc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fma32_rounds_once_to_nearest_even() {
        let big = 2f32.powi(30); // binary32 ulp 128 there
        assert_eq!(fma32(64.0, 1.0, big), big); // a tie: to even
        assert_eq!(fma32(64.0, 1.0 + 2f64.powi(-10), big), big + 128.0);
        assert_eq!(fma32(-64.0, 1.0 + 2f64.powi(-10), big), big - 64.0);
        assert_eq!(fma32(3.0, 5.0, 0.5), 15.5);
    }

    #[test]
    fn m8n8k4_chains_round_each_step() {
        // Products 2^24, 1, 1, 1: the f32 form's chain rounds 2^24 + 1 to 2^24 (a tie, to
        // even) at every step; the f16 form adds the pairs (2^24 + 1 → 2^24) and (1 + 1 = 2).
        let a = [4096.0, 1.0, 1.0, 1.0];
        assert_eq!(dot_m8n8k4_f32(&a, &a, 0.0), 16_777_216.0);
        assert_eq!(dot_m8n8k4_f16(&a, &a, 0.0), 16_777_218.0);
    }

    #[test]
    fn fp8_adds_c_last_in_binary32() {
        let model = AccModel::for_target(90, super::super::mma::MmaInput::F16);
        // 2^24 + 1 and 2^24 + 3 are ties of binary32: c is added by one rounded addition.
        let mut a = vec![0.0; 32];
        let b = vec![1.0; 32];
        a[2] = 1.0;
        assert_eq!(dot_fp8_as_f16(&model, &a, &b, 2f32.powi(24)), 2f32.powi(24));
        a[2] = 3.0;
        assert_eq!(
            dot_fp8_as_f16(&model, &a, &b, 2f32.powi(24)),
            2f32.powi(24) + 4.0
        );
    }
}
