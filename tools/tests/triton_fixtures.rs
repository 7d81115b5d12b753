//! The Triton fixtures of `tests/fixtures/triton/runs/`: kernels compiled by Triton 3.9 (the
//! corpus of `tests/fixtures/triton/corpus/`, made by `gen.py`), run through `ptxemu run` as a
//! user would, with only `--grid` and the kernel's own `--arg`s (block size, shared memory and
//! scratch pointers come from the `.json` Triton wrote beside each `.ptx`), and compared with
//! numpy references (`runs.py`): integers exactly, floats within each output's `rtol`/`atol`.
//!
//! One test per fixture and target: the same launch runs the sm_80, sm_90 and sm_100 builds.

mod fixture_common;

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/triton")
}

/// Runs fixture `name` on the build for `sm` (`sm80`, `sm90`, `sm100`), checks every dump
/// and that block size and shared memory came from Triton's metadata.
fn run(name: &str, sm: &str) {
    let dir = root().join("runs").join(name);
    let m = fixture_common::manifest(&dir);
    let ptx = m["ptx"].as_str().expect("ptx").replace("sm80", sm);
    let report = fixture_common::run_ptx(&root(), &dir, Some(&ptx));
    let meta = &report["triton_metadata"];
    assert_eq!(meta["block"], true, "block from the metadata: {meta}");
    assert_eq!(report["block"][0], meta["num_warps"].as_u64().unwrap() * 32);
    assert_eq!(report["shared_bytes"], meta["shared"]);
}

macro_rules! fixtures {
    ($($name:ident),* $(,)?) => {
        const LISTED: &[&str] = &[$(stringify!($name)),*];
        $(
            mod $name {
                fn name() -> String {
                    stringify!($name).replacen("_div", ".div", 1).replacen("_nodiv", ".nodiv", 1)
                }
                #[test]
                fn sm80() { super::run(&name(), "sm80"); }
                #[test]
                fn sm90() { super::run(&name(), "sm90"); }
                #[test]
                fn sm100() { super::run(&name(), "sm100"); }
            }
        )*
    };
}

fixtures!(
    cumsum_div,
    cumsum_nodiv,
    dropout_div,
    dropout_nodiv,
    fp16_gelu_div,
    fp16_gelu_nodiv,
    histogram_div,
    histogram_nodiv,
    int_ops_div,
    int_ops_nodiv,
    layer_norm_div,
    layer_norm_nodiv,
    masked_axpby_div,
    masked_axpby_nodiv,
    row_argmin_div,
    row_argmin_nodiv,
    row_max_div,
    row_max_nodiv,
    row_sum_div,
    row_sum_nodiv,
    softmax_div,
    softmax_nodiv,
    transpose_div,
    transpose_nodiv,
    vector_add_div,
    vector_add_nodiv,
);

/// Tensor-core kernels: ldmatrix, mma.sync and cp.async at sm_80; wgmma (A from shared memory
/// and, in attention, from registers) with cp.async at sm_90. Their sm_100 builds use
/// tcgen05.mma, which ptxemu does not run yet.
macro_rules! sm80_fixtures {
    ($($name:ident),* $(,)?) => {
        const SM80_ONLY: &[&str] = &[$(stringify!($name)),*];
        $(
            mod $name {
                fn name() -> String {
                    stringify!($name)
                        .replacen("_div", ".div", 1)
                        .replacen("_nodiv", ".nodiv", 1)
                }
                #[test]
                fn sm80() { super::run(&name(), "sm80"); }
                #[test]
                fn sm90() { super::run(&name(), "sm90"); }
            }
        )*
    };
}

sm80_fixtures!(
    attention_div,
    attention_nodiv,
    matmul_fp16_div,
    matmul_fp16_nodiv,
    matmul_int8_div,
    matmul_int8_nodiv,
);

/// Every folder under runs/ has its tests (a fixture added without a test fails here).
#[test]
fn every_fixture_is_listed() {
    let mut on_disk: Vec<String> = std::fs::read_dir(root().join("runs"))
        .expect("runs/")
        .map(|e| e.unwrap().file_name().to_string_lossy().replace('.', "_"))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = LISTED
        .iter()
        .chain(SM80_ONLY)
        .map(ToString::to_string)
        .collect();
    listed.sort();
    assert_eq!(on_disk, listed);
}

/// A contradicting `--block` is refused, naming the metadata.
#[test]
fn block_contradicting_metadata_is_refused() {
    let ptx = root().join("corpus/vector_add.div.sm80/vector_add.ptx");
    let out = fixture_common::ptxemu(&[
        "run",
        ptx.to_str().expect("UTF-8 path"),
        "--block",
        "64",
        "--arg",
        "f32[4]:zero",
        "--arg",
        "f32[4]:zero",
        "--arg",
        "f32[4]:zero",
        "--arg",
        "s32:4",
    ]);
    assert_eq!(out.status.code(), Some(2), "bad input exits 2");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("num_warps = 4"), "{err}");
    assert!(err.contains("vector_add.json"), "{err}");
}
