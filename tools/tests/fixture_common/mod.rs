//! Running a fixture folder's PTX through `ptxemu run` as a user would and checking the result
//! against the folder's `manifest.json`:
//!
//! * the launch: `grid`, optional `kernel`, `block` and `shared_bytes` (text or number) and
//!   extra `flags`; the PTX is either named by the caller (relative to the folder:
//!   [`run_fixture_at`]) or the manifest's `ptx` (relative to a corpus root: [`run`]);
//! * the `--arg` specs (`file=` paths relative to the folder);
//! * the buffers to `dumps`, each with its `expected` file: compared byte for byte, or, where
//!   the dump names a `dtype` (`f32`, `s32`, `f16`), element by element within its
//!   `rtol`/`atol` (0 when absent);
//! * an optional expected `stdout` file, and for faulting kernels the expected `exit` status
//!   and `stderr_contains` fragments.
//!
//! [`run`] and [`run_ptx`] also pass `--json`, check that the report lists no proxy faults and
//! no non-coherent-load conflicts, and return it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

/// `LISTED`, the given fixture names, and one `#[test] fn NAME` per name calling
/// `RUN("NAME")`: `fixture_common::fixture_tests!(RUN: name, ...)`.
#[allow(unused_macros)]
macro_rules! fixture_tests {
    ($run:ident: $($name:ident),* $(,)?) => {
        const LISTED: &[&str] = &[$(stringify!($name)),*];
        $(
            #[test]
            fn $name() { $run(stringify!($name)); }
        )*
    };
}
#[allow(unused_imports)]
pub(crate) use fixture_tests;

/// The names of the folders in `dir`, sorted (one fixture each).
pub fn folders(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

/// The folder's manifest.
pub fn manifest(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("manifest.json")).expect("manifest.json");
    serde_json::from_str(&text).expect("manifest.json is JSON")
}

/// The names of the folders under `dir` (files are skipped), sorted, with `.` and `-` as `_`
/// (test names).
pub fn listed_on_disk(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = folders(dir)
        .into_iter()
        .map(|n| n.replace(['.', '-'], "_"))
        .collect();
    v.sort();
    v
}

/// The `ptxemu run` command for `ptx` launched as manifest `m` of folder `dir` says: kernel,
/// grid, block, shared bytes, flags and arguments (no dumps, no `--json`).
pub fn launch_command(dir: &Path, ptx: &Path, m: &Value) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptxemu"));
    cmd.arg("run").arg(ptx);
    assert!(!m["grid"].is_null(), "manifest field `grid` is required");
    for (key, opt) in [
        ("kernel", "--kernel"),
        ("grid", "--grid"),
        ("block", "--block"),
        ("shared_bytes", "--shared-bytes"),
    ] {
        match &m[key] {
            Value::String(s) => {
                cmd.args([opt, s]);
            }
            Value::Number(n) => {
                cmd.args([opt, &n.to_string()]);
            }
            Value::Null => {}
            v => panic!("manifest field `{key}` must be text or a number, not {v}"),
        }
    }
    for f in m["flags"].as_array().cloned().unwrap_or_default() {
        cmd.arg(f.as_str().expect("flag"));
    }
    for a in m["args"].as_array().expect("args") {
        let spec = a.as_str().expect("arg spec");
        cmd.arg("--arg")
            .arg(spec.replace("file=", &format!("file={}/", dir.display())));
    }
    cmd
}

/// Runs `ptx_file` (relative to the fixture folder `dir`) and checks it against the manifest.
pub fn run_fixture_at(dir: &Path, ptx_file: &str) {
    run_manifest(dir, &dir.join(ptx_file), false);
}

/// Runs the fixture in folder `dir` whose manifest's `ptx` is relative to `root`, with
/// `--json`; returns the report for further checks.
pub fn run(root: &Path, dir: &Path) -> Value {
    run_ptx(root, dir, None)
}

/// [`run`] with the manifest's `ptx` replaced by `ptx` (relative to `root`) when given: one
/// launch run on several builds of a kernel.
pub fn run_ptx(root: &Path, dir: &Path, ptx: Option<&str>) -> Value {
    let m = manifest(dir);
    let ptx = root.join(ptx.unwrap_or_else(|| m["ptx"].as_str().expect("ptx")));
    run_manifest(dir, &ptx, true).expect("a --json report")
}

/// Runs `ptx` as the manifest of `dir` says and checks exit status, dumps, standard output
/// and standard error; with `json`, passes `--json`, checks the report and returns it.
fn run_manifest(dir: &Path, ptx: &Path, json: bool) -> Option<Value> {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let m = manifest(dir);
    let tag = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let out_dir = std::env::temp_dir().join(format!(
        "ptxemu-fx-{tag}-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&out_dir).expect("temp dir");
    let mut cmd = launch_command(dir, ptx, &m);
    if json {
        cmd.arg("--json");
    }
    let listed = m["dumps"].as_array().cloned().unwrap_or_default();
    let mut dumps: Vec<(PathBuf, &Value, String)> = Vec::new();
    for (k, d) in listed.iter().enumerate() {
        let path = out_dir.join(format!("dump{k}.bin"));
        cmd.arg("--dump")
            .arg(format!("{}={}", d["arg"], path.display()));
        // `expected_<variant>` (e.g. `expected_sm90` for `sm90.ptx`) where that variant's
        // numerics differ (the GPU the target names, not the PTX, decides them).
        let ptx_file = ptx
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let variant = format!("expected_{}", ptx_file.trim_end_matches(".ptx"));
        let want = d[variant.as_str()].as_str().or(d["expected"].as_str());
        dumps.push((path, d, want.expect("expected").to_string()));
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
    let report = json.then(|| {
        let report: Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
        if expected_exit == 0 {
            // the proxy checker and the non-coherent-load check found nothing
            assert_eq!(report["faults"], serde_json::json!([]), "{line}");
            assert_eq!(report["nc_conflicts"], serde_json::json!([]), "{line}");
        }
        report
    });
    for (got, d, want) in &dumps {
        check_dump(got, dir, (d, want), &format!("{tag}: reproduce: {line}"));
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
    report
}

/// Compares the dumped file `got` with the dump's `expected` file (relative to `dir`): byte
/// for byte, or element by element within `rtol`/`atol` where the dump names a `dtype`.
fn check_dump(got: &Path, dir: &Path, (d, want_file): (&Value, &str), context: &str) {
    let want_path = dir.join(want_file);
    let g = std::fs::read(got).unwrap_or_default();
    let w = std::fs::read(&want_path).expect("expected output");
    let Some(dtype) = d["dtype"].as_str() else {
        if g != w {
            let at = g
                .iter()
                .zip(&w)
                .position(|(a, b)| a != b)
                .unwrap_or(g.len().min(w.len()));
            panic!(
                "{} differs from {} at byte {at} (sizes {} and {})\n{context}",
                got.display(),
                want_path.display(),
                g.len(),
                w.len()
            );
        }
        return;
    };
    let (rtol, atol) = (
        d["rtol"].as_f64().unwrap_or(0.0),
        d["atol"].as_f64().unwrap_or(0.0),
    );
    let (got, want) = (decode(&g, dtype), decode(&w, dtype));
    assert_eq!(got.len(), want.len(), "{want_file}: length\n{context}");
    let bad: Vec<usize> = (0..got.len())
        .filter(|&i| !close(got[i], want[i], rtol, atol))
        .collect();
    assert!(
        bad.is_empty(),
        "{want_file}: {} of {} elements outside rtol {rtol}, atol {atol}; first at {}: got {}, want {}\n{context}",
        bad.len(),
        got.len(),
        bad[0],
        got[bad[0]],
        want[bad[0]]
    );
}

/// IEEE binary16 bits to f64 (exact).
fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f64::from(h & 0x3ff);
    sign * match exp {
        0 => frac * 2f64.powi(-24),
        31 if frac == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1.0 + frac / 1024.0) * 2f64.powi(e - 15),
    }
}

/// Little-endian elements of `dtype` (`f32`, `s32`, `f16`) as f64 (exact).
pub fn decode(bytes: &[u8], dtype: &str) -> Vec<f64> {
    match dtype {
        "f32" => bytes
            .chunks_exact(4)
            .map(|c| f64::from(f32::from_le_bytes(c.try_into().unwrap())))
            .collect(),
        "s32" => bytes
            .chunks_exact(4)
            .map(|c| f64::from(i32::from_le_bytes(c.try_into().unwrap())))
            .collect(),
        "f16" => bytes
            .chunks_exact(2)
            .map(|c| f16_to_f64(u16::from_le_bytes(c.try_into().unwrap())))
            .collect(),
        other => panic!("unknown dtype {other}"),
    }
}

/// Whether `got` is within `atol + rtol * |want|` of `want`.
pub fn close(got: f64, want: f64, rtol: f64, atol: f64) -> bool {
    got == want || (got - want).abs() <= atol + rtol * want.abs()
}

/// The workspace root: many tests name their files relative to it.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// [`ptxemu`] run in the workspace root.
pub fn ptxemu_in_workspace(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ptxemu"))
        .current_dir(workspace())
        .args(args)
        .output()
        .expect("ptxemu runs")
}

/// Runs the `ptxemu` binary under test with `args` and returns what it did.
pub fn ptxemu(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ptxemu"))
        .args(args)
        .output()
        .expect("ptxemu runs")
}

/// A fresh, empty scratch folder for test `name` of suite `suite`.
pub fn scratch(suite: &str, name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("ptxemu-{suite}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}

/// Writes `body` to file `name` of the scratch folder of suite `suite` (one per test process,
/// shared by its tests, not emptied); returns its path.
pub fn scratch_file(suite: &str, name: &str, body: impl AsRef<[u8]>) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxemu-{suite}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("scratch folder");
    let p = d.join(name);
    std::fs::write(&p, body).expect("scratch file");
    p
}

/// Standard error as text.
pub fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Standard output as text.
pub fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Asserts that the command's standard error contains `frag`, showing it otherwise.
#[track_caller]
pub fn assert_stderr_has(o: &std::process::Output, frag: &str) {
    let e = stderr(o);
    assert!(e.contains(frag), "stderr lacks {frag:?}:\n{e}");
}

/// Asserts that the command exited with `code`, showing its output otherwise.
#[track_caller]
pub fn assert_exit(o: &std::process::Output, code: i32) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "exit status
stdout: {}
stderr: {}",
        stdout(o),
        stderr(o)
    );
}

/// Writes `text` to `dir/name`; returns the path as text for a command line.
pub fn write_file(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("scratch file");
    p.to_string_lossy().into_owned()
}
