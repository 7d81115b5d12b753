//! The warp-level matrix kernels of `tests/fixtures/mma/` (CUDA with inline mma, ldmatrix,
//! stmatrix and movmatrix, and CUDA using `nvcuda::wmma`, compiled by nvcc 13 for sm_80 and
//! sm_90; hand-written PTX for the faults), run through `ptxemu run` and compared bit for bit with the outputs of the
//! independent references of `gen.py`: numpy for integers and moves, exact rational FMAs for
//! `.f64`, and the Python tensor-core model `model.py` for the narrow float inputs. One test per
//! folder, each running every variant its manifest lists (`"variants"`: `sm80`, `sm90`, …).

mod fixture_common;

use std::path::{Path, PathBuf};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/mma")
}

fn run(name: &str) {
    let dir = fixtures_dir().join(name);
    let m = fixture_common::manifest(&dir);
    let variants: Vec<String> = m["variants"]
        .as_array()
        .expect("manifest lists its variants")
        .iter()
        .map(|v| v.as_str().expect("variant name").to_string())
        .collect();
    assert!(!variants.is_empty(), "{name}: no PTX to run");
    for v in variants {
        fixture_common::run_fixture_at(&dir, &format!("{v}.ptx"));
    }
}

fixture_common::fixture_tests!(
    run:
    b1_popc,
    b8_sm100,
    bf16_m16n8k8,
    e4m3_m16n8k32,
    f16_ldmatrix,
    f16_quad_pair,
    f64_m16n8k16,
    f64_m8n8k4,
    packed_sm100,
    s8_satfinite,
    stmatrix_movmatrix,
    tf32_m16n8k8,
    u4s4_m16n8k64,
    wmma_bf16_tf32,
    wmma_f16_gemm,
    wmma_f64,
    wmma_s8,
    fault_diverged,
    fault_exited,
    fault_ldmatrix_misaligned,
);

#[test]
fn every_folder_is_listed() {
    let on_disk = fixture_common::folders(&fixtures_dir());
    let mut listed: Vec<String> = LISTED.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed, "add new folders to the fixtures! list");
}
