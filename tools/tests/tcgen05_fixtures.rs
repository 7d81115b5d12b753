//! The tcgen05 kernels of `tests/fixtures/tcgen05/` (CUDA with inline PTX compiled by nvcc 13
//! for sm_100a/sm_103a, and hand-written PTX), run through `ptxemu run` and compared with the
//! outputs of the independent Python reference `ref.py`, which follows the spec's formulas;
//! and one kernel per checked-mode fault, with the fault's message. One test per folder, each
//! running every PTX file its manifest lists (`"ptx"`, default `kernel.ptx`).

mod fixture_common;

use std::path::{Path, PathBuf};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/tcgen05")
}

fn run(name: &str) {
    let dir = fixtures_dir().join(name);
    let m = fixture_common::manifest(&dir);
    let files: Vec<String> = match m["ptx"].as_array() {
        Some(list) => list
            .iter()
            .map(|f| f.as_str().expect("ptx file name").to_string())
            .collect(),
        None => vec!["kernel.ptx".to_string()],
    };
    assert!(!files.is_empty(), "{name}: no PTX to run");
    for f in files {
        fixture_common::run_fixture_at(&dir, &f);
    }
}

fixture_common::fixture_tests!(
    run:
    block3d,
    cp_128x256b,
    cp_4x256b,
    cp_decompress_b4,
    cp_decompress_b6,
    cp_warpx2,
    cp_warpx4,
    cp_commit_wait,
    cp_then_mma_same_thread,
    fault_cp_ld_unobserved,
    fault_cp_ld_no_fence,
    fault_cp_mma_other_thread,
    cutlass_32x32b,
    large_num,
    ld_red,
    ld_red_stat,
    multi_alloc,
    alloc_blocks_until_dealloc,
    pair_alloc_same_address,
    fault_alloc_self_deadlock,
    multi_cta,
    pack_unpack,
    quarters_mixed,
    shape_16x128b,
    shape_16x256b,
    shape_16x32bx2,
    shape_16x64b,
    shift_down,
    pair_shift,
    warpgroups_pc,
    fault_alloc_after_relinquish,
    fault_col_range,
    fault_cp_desc_outside_smem,
    fault_cp_ld_before_commit,
    fault_cp_no_proxy_fence,
    fault_cp_not_allocated,
    fault_cta_group2,
    fault_dealloc_mismatch,
    fault_diverged,
    fault_diverged_alloc,
    fault_exited,
    fault_ld_without_wait_st,
    fault_leak,
    fault_ncols,
    fault_ncols_1024,
    fault_nonuniform_taddr,
    fault_not_allocated,
    fault_not_allocated_unpack,
    fault_quarter,
    fault_quarter_half2,
    fault_quarter_ld_red,
    fault_st_without_wait_ld,
    mma_a_tmem,
    mma_bf16_m64_mn,
    mma_disable_lanes,
    mma_f16_d,
    mma_f16_m128n64,
    mma_f16_none_neg,
    mma_f8f6f4,
    mma_f8f6f4_narrow,
    mma_i8,
    mma_i8_sat,
    mma_tf32,
    mma_ws_m128,
    mma_ws_m32,
    mma_ws_m32_i8,
    mma_ws_m64,
    fault_mma_desc_outside,
    fault_mma_idesc_reserved,
    fault_mma_idesc_shape,
    fault_mma_ld_phase,
    fault_mma_ld_uncommitted,
    fault_mma_no_proxy_fence,
    mma_wait_warp0_bar_sync,
    fault_mma_ld_unobserved,
    fault_mma_ld_no_fence,
    fault_pair_alloc_mismatch,
    fault_pair_alloc_one_side,
);

#[test]
fn every_folder_is_listed() {
    let on_disk = fixture_common::folders(&fixtures_dir());
    let mut listed: Vec<String> = LISTED.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed, "add new folders to the fixtures! list");
    let passing = LISTED.iter().filter(|n| !n.starts_with("fault_")).count();
    assert!(
        passing >= 10,
        "the issue asks for at least 10 kernels run end to end"
    );
}
