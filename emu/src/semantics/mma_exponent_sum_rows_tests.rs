//! [`dot_row_f16_exponent_sum`] against the per-element reference
//! ([`super::super::dot_f32`], [`super::super::dot_f32_wide`]) on random rows of binary16
//! inputs: the results must be the same bits, and rows the fast path declines must be rare
//! enough that it is what the comparison exercises.

use super::super::rows_test_inputs::{check_rows, RowResult};
use super::super::{dot_f32, dot_f32_wide, AccModel, MmaInput};
use super::{dot_row_f16_exponent_sum, exponent_sum_rows_apply, row_with, ARow, Panel, COLS};
use crate::semantics::convert::f16_to_f32;

/// Compares `rows` random rows of length `K` under `model` ([`check_rows`], with the binary64
/// sums); returns how many the fast path computed.
fn check<const K: usize>(model: AccModel, exps: (u32, u32), rows: usize, seed: u64) -> usize {
    assert!(exponent_sum_rows_apply(&model, MmaInput::F16));
    check_rows::<K>(model, exps, (rows, seed), |row, portable| {
        let (a, panel) = (ARow::new(&model, row.a()), Panel::new(&model, row.b()));
        let mut wide = [0f64; COLS];
        let d = row_with(&model, &a, &panel, &row.c, Some(&mut wide), portable)?;
        Some(RowResult {
            d,
            wide: Some(wide),
        })
    })
}

#[test]
fn h100_rows_match_the_reference() {
    let model = AccModel::for_target(90, MmaInput::F16);
    let fast = check::<16>(model, (1, 30), 4000, 11);
    assert!(fast > 2000, "only {fast} of 4000 rows took the fast path");
    let fast = check::<32>(model, (1, 30), 2000, 12);
    assert!(fast > 1000, "only {fast} of 2000 rows took the fast path");
}

#[test]
fn one_binade_and_blocks_of_eight_match_the_reference() {
    // Values of one binade, where cancellation and carries are common, and the largest
    // significands (products near 4), where a block's sum comes nearest 2^31.
    let h100 = AccModel::for_target(90, MmaInput::F16);
    assert!(check::<16>(h100, (15, 16), 3000, 13) > 1500);
    assert!(check::<16>(h100, (30, 30), 3000, 14) > 1500);
    let eights = AccModel { block: 8, ..h100 };
    assert!(check::<16>(eights, (1, 30), 3000, 15) > 1500);
}

#[test]
fn the_largest_sums_match_the_reference() {
    // Sixteen products of the largest binary16 value and an accumulator of the same
    // alignment: the block's aligned sum exceeds 2^31 (one i32 would overflow).
    let model = AccModel::for_target(90, MmaInput::F16);
    let max = f16_to_f32(0x7BFF);
    let a = ARow::new(&model, [max; 16]);
    let panel = Panel::new(&model, [[max; COLS]; 16]);
    let c: [f32; COLS] = std::array::from_fn(|j| (1.0 + j as f32 / 8.0) * 2f32.powi(30));
    let mut wide = [0f64; COLS];
    let d = dot_row_f16_exponent_sum(&model, &a, &panel, &c, Some(&mut wide)).unwrap();
    let a64 = vec![f64::from(max); 16];
    for j in 0..COLS {
        let want = dot_f32(&model, &a64, &a64, c[j]);
        assert_eq!(d[j].to_bits(), want.to_bits(), "column {j}");
        let want_wide = dot_f32_wide(&model, &a64, &a64, c[j]);
        assert_eq!(wide[j].to_bits(), want_wide.to_bits(), "column {j}");
    }
}

#[test]
fn other_models_and_formats_are_declined() {
    let a100 = AccModel::for_target(80, MmaInput::F16);
    assert!(!exponent_sum_rows_apply(&a100, MmaInput::F16));
    let bf16 = AccModel::for_target(90, MmaInput::Bf16);
    assert!(!exponent_sum_rows_apply(&bf16, MmaInput::Bf16));
    let fp8 = AccModel::for_target(90, MmaInput::Fp8);
    assert!(!exponent_sum_rows_apply(&fp8, MmaInput::Fp8));
}
