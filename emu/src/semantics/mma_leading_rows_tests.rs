//! [`dot_row_f16`] against the per-element reference ([`super::super::dot_f32`]) on random
//! rows of binary16 inputs: the results must be the same bits, and rows the fast path declines
//! must be rare enough that it is what the comparison exercises.

use super::super::rows_test_inputs::{check_rows, RowResult};
use super::super::{AccModel, Align, MmaInput};
use super::{row_with, rows_apply};

/// Compares `rows` random rows of length `K` under `model` ([`check_rows`]); returns how many
/// the fast path computed.
fn check<const K: usize>(model: AccModel, exps: (u32, u32), rows: usize, seed: u64) -> usize {
    assert!(rows_apply(&model, MmaInput::F16));
    check_rows::<K>(model, exps, (rows, seed), |row, portable| {
        let d = row_with(&model, &row.a(), &row.b(), &row.c, portable)?;
        Some(RowResult { d, wide: None })
    })
}

#[test]
fn a100_rows_match_the_reference() {
    let model = AccModel::for_target(80, MmaInput::F16);
    let fast = check::<16>(model, (1, 30), 4000, 1);
    assert!(fast > 2000, "only {fast} of 4000 rows took the fast path");
    let fast = check::<8>(model, (1, 30), 2000, 2);
    assert!(fast > 1000, "only {fast} of 2000 rows took the fast path");
}

#[test]
fn older_models_match_the_reference() {
    // V100 and T4: blocks of four.
    let model = AccModel::for_target(70, MmaInput::F16);
    assert!(check::<16>(model, (1, 30), 2000, 3) > 1000);
    assert!(check::<8>(model, (1, 30), 2000, 4) > 1000);
}

#[test]
fn one_binade_and_a_wider_alignment_match_the_reference() {
    // Values of one binade, where cancellation and carries are common.
    let a100 = AccModel::for_target(80, MmaInput::F16);
    assert!(check::<16>(a100, (15, 16), 3000, 5) > 1500);
    // One extra alignment bit (24 kept): the widest the i32 sums allow.
    let wider = AccModel {
        extra_bits: 1,
        ..a100
    };
    assert_eq!(wider.align, Align::Leading);
    assert!(check::<16>(wider, (1, 30), 3000, 6) > 1500);
    assert!(check::<16>(wider, (14, 16), 3000, 7) > 1500);
}

#[test]
fn other_models_and_formats_are_declined() {
    let h100 = AccModel::for_target(90, MmaInput::F16);
    assert!(!rows_apply(&h100, MmaInput::F16));
    let a100 = AccModel::for_target(80, MmaInput::Bf16);
    assert!(!rows_apply(&a100, MmaInput::Bf16));
    let tf32 = AccModel::for_target(80, MmaInput::Tf32);
    assert!(!rows_apply(&tf32, MmaInput::Tf32));
}
