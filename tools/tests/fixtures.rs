//! The kernel fixtures of `tests/fixtures/kernels/`: each kernel compiled by nvcc 13 and
//! clang-16 at -O0 and -O3, run through `ptxemu run` exactly as a user would, and compared
//! with the outputs of an independent host reference (`ref.c`). One test per PTX file.
//!
//! Each folder's `manifest.json` gives the launch and what to expect (`fixture_common`).

mod fixture_common;

use std::path::{Path, PathBuf};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/kernels")
}

fn run_fixture(name: &str, variant: &str) {
    fixture_common::run_fixture_at(&fixtures_dir().join(name), &format!("{variant}.ptx"));
}

/// Fixtures that need the CUDA SDK's headers (cooperative groups) and so have nvcc output only.
macro_rules! nvcc_only_fixtures {
    ($($name:ident),* $(,)?) => {
        const NVCC_ONLY: &[&str] = &[$(stringify!($name)),*];
        $(
            mod $name {
                #[test]
                fn nvcc_o0() { super::run_fixture(stringify!($name), "nvcc-O0"); }
                #[test]
                fn nvcc_o3() { super::run_fixture(stringify!($name), "nvcc-O3"); }
            }
        )*
    };
}

nvcc_only_fixtures!(grid_sync);

macro_rules! fixtures {
    ($($name:ident),* $(,)?) => {
        const LISTED: &[&str] = &[$(stringify!($name)),*];
        $(
            mod $name {
                #[test]
                fn nvcc_o0() { super::run_fixture(stringify!($name), "nvcc-O0"); }
                #[test]
                fn nvcc_o3() { super::run_fixture(stringify!($name), "nvcc-O3"); }
                #[test]
                fn clang_o0() { super::run_fixture(stringify!($name), "clang-O0"); }
                #[test]
                fn clang_o3() { super::run_fixture(stringify!($name), "clang-O3"); }
            }
        )*
    };
}

fixtures!(
    assert_fault,
    atomic_cas_loop,
    ballot_vote,
    bit_tricks,
    bitonic_sort,
    device_calls,
    divergent_loops,
    f64_math,
    float_conversions,
    grid2d,
    histogram,
    local_array,
    matmul_tiled,
    oob_fault,
    printf,
    reduce_sum,
    saxpy,
    vector_add,
    warp_scan,
);

fn elem_size(ty: &str) -> u64 {
    match ty {
        "u8" | "s8" | "b8" => 1,
        "u16" | "s16" | "b16" => 2,
        "u64" | "s64" | "b64" | "f64" => 8,
        _ => 4,
    }
}

#[test]
fn every_fixture_folder_is_listed_and_complete() {
    let on_disk = fixture_common::folders(&fixtures_dir());
    let mut listed: Vec<String> = LISTED
        .iter()
        .chain(NVCC_ONLY)
        .map(|s| s.to_string())
        .collect();
    listed.sort();
    assert_eq!(
        on_disk, listed,
        "add new fixture folders to the fixtures! list"
    );
    for name in &on_disk {
        let dir = fixtures_dir().join(name);
        let mut files = vec![
            "kernel.cu",
            "ref.c",
            "manifest.json",
            "nvcc-O0.ptx",
            "nvcc-O3.ptx",
        ];
        if !NVCC_ONLY.contains(&name.as_str()) {
            files.extend(["clang-O0.ptx", "clang-O3.ptx"]);
        }
        for f in files {
            assert!(dir.join(f).exists(), "{name}/{f} is missing");
        }
        let m = fixture_common::manifest(&dir);
        for a in m["args"].as_array().expect("args") {
            let spec = a.as_str().expect("spec");
            if let Some((head, file)) = spec.split_once(":file=") {
                let (ty, count) = head.split_once('[').expect("a buffer spec");
                let count: u64 = count.trim_end_matches(']').parse().expect("count");
                let len = std::fs::metadata(dir.join(file)).expect("input file").len();
                assert_eq!(len, count * elem_size(ty), "{name}: {file} size");
            }
        }
    }
}
