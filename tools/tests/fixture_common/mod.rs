//! Running a fixture folder's PTX through `ptxemu run` as a user would and checking the result
//! against the folder's `manifest.json`: the launch (`kernel`, `grid`, `block`, optional
//! `shared_bytes` and extra `flags`), the `--arg` specs (`file=` paths relative to the folder),
//! the buffers to `dumps` with their `expected` files, an optional expected `stdout` file, and
//! for faulting kernels the expected `exit` status and `stderr_contains` fragments.

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

use serde_json::Value;

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

fn str_field<'a>(m: &'a Value, k: &str) -> &'a str {
    m[k].as_str()
        .unwrap_or_else(|| panic!("manifest field `{k}` must be a string"))
}

/// Runs `ptx_file` of the fixture folder `dir` and checks it against the manifest.
pub fn run_fixture_at(dir: &Path, ptx_file: &str) {
    let m = manifest(dir);
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let out_dir = std::env::temp_dir().join(format!(
        "ptxemu-fixture-{name}-{ptx_file}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&out_dir).expect("temp dir");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptxemu"));
    cmd.arg("run").arg(dir.join(ptx_file)).args([
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
    for f in m["flags"].as_array().cloned().unwrap_or_default() {
        cmd.arg(f.as_str().expect("flag"));
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
        // `expected_<variant>` (e.g. `expected_sm90` for `sm90.ptx`) where that variant's
        // numerics differ (the GPU the target names, not the PTX, decides them).
        let variant = format!("expected_{}", ptx_file.trim_end_matches(".ptx"));
        let want = d[variant.as_str()].as_str().or(d["expected"].as_str());
        dumps.push((path, dir.join(want.expect("expected"))));
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

/// Standard error as text.
pub fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Writes `text` to `dir/name`; returns the path as text for a command line.
pub fn write_file(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("scratch file");
    p.to_string_lossy().into_owned()
}
