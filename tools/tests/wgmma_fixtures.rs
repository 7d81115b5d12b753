//! The warpgroup-level matrix kernels of `tests/fixtures/wgmma/` (hand-written sm_90a PTX made
//! by `gen.py`: wgmma.mma_async with every swizzle mode, K-major and MN-major operands, A from
//! shared memory and from registers, every input type family; and the faults of an incomplete
//! or diverged warpgroup and of an accumulator written in flight), run through `ptxemu run`
//! and compared bit for bit with numpy references (exact: integer inputs, and float inputs
//! whose products and sums are exact in binary32).

mod fixture_common;

use std::path::{Path, PathBuf};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/wgmma")
}

fn run(name: &str) {
    fixture_common::run_fixture_at(&fixtures_dir().join(name), "sm90a.ptx");
}

fixture_common::fixture_tests!(
    run:
    b1_and_popc,
    bf16_mn_128b,
    e4m3_e5m2,
    f16_areg_neg,
    f16_k_128b,
    f16_k_32b,
    f16_k_64b,
    f16_k_none,
    f16_mn_32b_64b,
    f16_mn_none,
    fault_acc_read,
    fault_acc_written,
    fault_desc_not_uniform,
    fault_no_fence,
    fault_no_proxy_fence,
    fault_operand_outside,
    fault_two_warps,
    fault_warpgroup_diverged,
    s8u8_satfinite,
    scale_d_zero,
    tf32_k_128b_neg,
    triton_f16_acc,
    u8_areg_wrap,
);

#[test]
fn every_folder_is_listed() {
    let on_disk = fixture_common::folders(&fixtures_dir());
    let mut listed: Vec<String> = LISTED.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed, "add new folders to the fixtures! list");
}
