//! The kernel fixtures of `tests/fixtures/kernels/`: each kernel compiled by nvcc 13 and
//! clang-16 at -O0 and -O3, run through `ptxemu run` exactly as a user would, and compared
//! with the outputs of an independent host reference (`ref.c`). One test per PTX file.
//!
//! A manifest (`manifest.json`) gives the launch: `kernel`, `grid`, `block`, optional
//! `shared_bytes`, the `--arg` specs (`file=` paths relative to the kernel's folder), the
//! buffers to `dumps` with their `expected` files, an optional expected `stdout` file, and for
//! faulting kernels the expected `exit` status and `stderr_contains` fragments.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/kernels")
}

fn manifest(kernel_dir: &Path) -> Value {
    let text = std::fs::read_to_string(kernel_dir.join("manifest.json")).expect("manifest.json");
    serde_json::from_str(&text).expect("manifest.json is JSON")
}

fn str_field<'a>(m: &'a Value, k: &str) -> &'a str {
    m[k].as_str()
        .unwrap_or_else(|| panic!("manifest field `{k}` must be a string"))
}

fn run_fixture(name: &str, variant: &str) {
    let dir = fixtures_dir().join(name);
    let m = manifest(&dir);
    let ptx = dir.join(format!("{variant}.ptx"));
    let out_dir = std::env::temp_dir().join(format!(
        "ptxemu-fixture-{name}-{variant}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&out_dir).expect("temp dir");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptxemu"));
    cmd.arg("run").arg(&ptx).args([
        "--kernel",
        str_field(&m, "kernel"),
        "--grid",
        str_field(&m, "grid"),
        "--block",
        str_field(&m, "block"),
    ]);
    if let Some(n) = m["shared_bytes"].as_u64() {
        cmd.args(["--shared-bytes", &n.to_string()]);
    }
    for a in m["args"].as_array().expect("args") {
        let spec = a.as_str().expect("arg spec");
        let spec = spec.replace("file=", &format!("file={}/", dir.display()));
        cmd.arg("--arg").arg(spec);
    }
    let mut dumps = Vec::new();
    let listed = m["dumps"].as_array().cloned().unwrap_or_default();
    for (k, d) in listed.iter().enumerate() {
        let path = out_dir.join(format!("dump{k}.bin"));
        cmd.arg("--dump")
            .arg(format!("{}={}", d["arg"], path.display()));
        dumps.push((path, dir.join(d["expected"].as_str().expect("expected"))));
    }
    let line = format!("{cmd:?}");
    let out = cmd.output().expect("ptxemu runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected_exit = m["exit"].as_i64().unwrap_or(0);
    assert_eq!(
        i64::from(out.status.code().unwrap_or(-1)),
        expected_exit,
        "exit status of {line}\nstderr: {stderr}"
    );
    for (got, want) in &dumps {
        let g = std::fs::read(got).unwrap_or_default();
        let w = std::fs::read(want).expect("expected output");
        if g != w {
            let at = g
                .iter()
                .zip(&w)
                .position(|(a, b)| a != b)
                .unwrap_or(g.len().min(w.len()));
            panic!(
                "{} differs from {} at byte {at} (sizes {} and {})\nreproduce: {line}",
                got.display(),
                want.display(),
                g.len(),
                w.len()
            );
        }
    }
    if let Some(f) = m["stdout"].as_str() {
        let want = std::fs::read_to_string(dir.join(f)).expect("expected stdout");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            want,
            "stdout of {line}"
        );
    }
    for frag in m["stderr_contains"].as_array().cloned().unwrap_or_default() {
        let frag = frag.as_str().expect("fragment");
        assert!(
            stderr.contains(frag),
            "stderr of {line} lacks {frag:?}:\n{stderr}"
        );
    }
    std::fs::remove_dir_all(&out_dir).ok();
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
    let mut on_disk: Vec<String> = std::fs::read_dir(fixtures_dir())
        .expect("fixtures folder")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
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
        let m = manifest(&dir);
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
