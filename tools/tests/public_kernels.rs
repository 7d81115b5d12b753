//! Public CUDA kernels (NVIDIA's cuda-samples, Rodinia, PolyBench/GPU, SHOC, Parboil, …) as
//! nvcc 13.5 emits them, run through `ptxemu run --plan` exactly as a user would, and compared
//! with an independent numpy reference. One test per folder of `tests/fixtures/public/`.
//!
//! Each folder holds the vendored source (`src/`, unchanged, licences in `LICENCES/`; the
//! suites' shared headers once, in `common/`), the
//! PTX (`kernel.ptx`), the reference (`ref.py`, which wrote `inputs/` and `expected/`), the
//! launches (`plan.json`, docs/plan-format.md; dumps go to `out/` under the current folder) and
//! `expect.json`: `outputs` (each `file`, `expected`, element `type`, and optional `rtol`/`atol`
//! for floats; bytes must be equal otherwise), optional `exit` (default 0), `stdout` (a file of
//! the expected printed text) and `stderr_contains`.

mod fixture_common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn public_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/public")
}

fn json_file(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Element `i` of `bytes` read as `ty`, as f64 (floats) for a tolerance comparison.
fn float_at(bytes: &[u8], ty: &str, i: usize) -> f64 {
    match ty {
        "f32" => f64::from(f32::from_le_bytes(
            bytes[i * 4..i * 4 + 4].try_into().unwrap(),
        )),
        "f64" => f64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().unwrap()),
        _ => panic!("a tolerance needs an f32 or f64 output, not {ty}"),
    }
}

fn compare_output(dir: &Path, cwd: &Path, out: &Value, line: &str) {
    let got_path = cwd.join(out["file"].as_str().expect("outputs[].file"));
    let want_path = dir.join(out["expected"].as_str().expect("outputs[].expected"));
    let got = std::fs::read(&got_path)
        .unwrap_or_else(|e| panic!("{}: {e}\nreproduce: {line}", got_path.display()));
    let want = std::fs::read(&want_path).expect("expected output");
    assert_eq!(
        got.len(),
        want.len(),
        "{} and {} differ in size\nreproduce: {line}",
        got_path.display(),
        want_path.display()
    );
    let ty = out["type"].as_str().unwrap_or("u8");
    let (rtol, atol) = (out["rtol"].as_f64(), out["atol"].as_f64());
    if rtol.is_none() && atol.is_none() {
        if let Some(at) = got.iter().zip(&want).position(|(a, b)| a != b) {
            panic!(
                "{} differs from {} at byte {at}\nreproduce: {line}",
                got_path.display(),
                want_path.display()
            );
        }
        return;
    }
    let (rtol, atol) = (rtol.unwrap_or(0.0), atol.unwrap_or(0.0));
    let size = if ty == "f64" { 8 } else { 4 };
    let mut worst: Option<(usize, f64, f64)> = None;
    let mut bad = 0usize;
    for i in 0..got.len() / size {
        let (g, w) = (float_at(&got, ty, i), float_at(&want, ty, i));
        let ok = (g.is_nan() && w.is_nan()) || (g - w).abs() <= atol + rtol * w.abs();
        if !ok {
            bad += 1;
            worst.get_or_insert((i, g, w));
        }
    }
    if let Some((i, g, w)) = worst {
        panic!(
            "{}: {bad} element(s) outside rtol {rtol} atol {atol}; first at {i}: got {g}, want {w}\nreproduce: {line}",
            got_path.display()
        );
    }
}

/// Runs the folder's plan and checks every output named in `expect.json`.
fn run_public(name: &str) {
    let dir = public_dir().join(name);
    let expect = json_file(&dir.join("expect.json"));
    let cwd = std::env::temp_dir().join(format!("ptxemu-public-{name}-{}", std::process::id()));
    std::fs::create_dir_all(cwd.join("out")).expect("temp dir");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptxemu"));
    cmd.current_dir(&cwd)
        .arg("run")
        .arg("--plan")
        .arg(dir.join("plan.json"));
    let line = format!("cd {} && {cmd:?}", cwd.display());
    let out = cmd.output().expect("ptxemu runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        i64::from(out.status.code().unwrap_or(-1)),
        expect["exit"].as_i64().unwrap_or(0),
        "exit status of {line}\nstderr: {stderr}"
    );
    for o in expect["outputs"].as_array().cloned().unwrap_or_default() {
        compare_output(&dir, &cwd, &o, &line);
    }
    if let Some(f) = expect["stdout"].as_str() {
        let want = std::fs::read_to_string(dir.join(f)).expect("expected stdout");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            want,
            "stdout of {line}"
        );
    }
    for frag in expect["stderr_contains"]
        .as_array()
        .cloned()
        .unwrap_or_default()
    {
        let frag = frag.as_str().expect("fragment");
        assert!(
            stderr.contains(frag),
            "stderr of {line} lacks {frag:?}:\n{stderr}"
        );
    }
    std::fs::remove_dir_all(&cwd).ok();
}

// One line per folder of tests/fixtures/public/, in alphabetical order.
fixture_common::fixture_tests!(
    run_public:
    cuda_samples_aligned_types,
    cuda_samples_binary_partition_cg,
    cuda_samples_binomial_options,
    cuda_samples_bitonic_sort,
    cuda_samples_black_scholes,
    cuda_samples_convolution_separable,
    cuda_samples_fast_walsh_transform,
    cuda_samples_fdtd3d,
    cuda_samples_histogram256,
    cuda_samples_histogram64,
    cuda_samples_matrix_mul,
    cuda_samples_merge_sort,
    cuda_samples_nbody,
    cuda_samples_odd_even_merge_sort,
    cuda_samples_quasirandom_generator,
    cuda_samples_reduction,
    cuda_samples_reduction_multi_block_cg,
    cuda_samples_scalar_prod,
    cuda_samples_scan,
    cuda_samples_shfl_scan,
    cuda_samples_simple_vote_intrinsics,
    cuda_samples_sobol_qrng,
    cuda_samples_thread_fence_reduction,
    cuda_samples_transpose,
    cuda_samples_vector_add,
    cuda_samples_warp_aggregated_atomics_cg,
    polybench_2dconv,
    polybench_2mm,
    polybench_3dconv,
    polybench_3mm,
    polybench_adi,
    polybench_atax,
    polybench_bicg,
    polybench_correlation,
    polybench_doitgen,
    polybench_fdtd_2d,
    polybench_gemm,
    polybench_gemver,
    polybench_gesummv,
    polybench_gramschmidt,
    polybench_jacobi1d,
    polybench_jacobi2d,
    polybench_syr2k,
    polybench_syrk,
    rodinia_backprop,
    rodinia_bfs,
    rodinia_btree,
    rodinia_gaussian,
    rodinia_hotspot,
    rodinia_hotspot3d,
    rodinia_lavamd,
    rodinia_lud,
    rodinia_nn,
    rodinia_nw,
    rodinia_pathfinder,
    rodinia_srad_v1,
    rodinia_srad_v2,
    rodinia_streamcluster,
);

#[test]
fn every_folder_is_listed_here_and_in_the_readme_and_complete() {
    let mut on_disk: Vec<String> = std::fs::read_dir(public_dir())
        .expect("tests/fixtures/public")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir() && e.file_name() != "LICENCES" && e.file_name() != "common")
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = LISTED.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(
        on_disk, listed,
        "add new folders to the public_kernels! list"
    );
    let readme = std::fs::read_to_string(public_dir().join("README.md")).expect("README.md");
    for name in &on_disk {
        assert!(
            readme.contains(&format!("`{name}`")),
            "tests/fixtures/public/README.md does not list `{name}`"
        );
        let dir = public_dir().join(name);
        for f in ["src", "kernel.ptx", "ref.py", "plan.json", "expect.json"] {
            assert!(dir.join(f).exists(), "{name}/{f} is missing");
        }
    }
}
