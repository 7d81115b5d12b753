//! Runs a fixture described by a `manifest.json` through `ptxemu run` as a user would and
//! compares every dumped output with its expected file (written by numpy): integers
//! exactly, floats within the dump's `rtol`/`atol`.
//!
//! The manifest holds `ptx` (relative to the corpus root), `grid`, optionally `kernel`,
//! `block` and `shared_bytes`, `args` (`--arg` texts whose `file=` paths are relative to the
//! fixture folder) and `dumps` (`arg`, `expected`, `dtype`, `rtol`, `atol`).

// Each test binary that includes this module uses only some of it.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

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

/// Runs the fixture in folder `dir` whose PTX path is relative to `root`; returns the
/// `--json` report for further checks.
pub fn run(root: &Path, dir: &Path) -> Value {
    run_ptx(root, dir, None)
}

/// [`run`] with the manifest's `ptx` replaced by `ptx` (relative to `root`) when given: one
/// launch run on several builds of a kernel.
pub fn run_ptx(root: &Path, dir: &Path, ptx: Option<&str>) -> Value {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let text = std::fs::read_to_string(dir.join("manifest.json")).expect("manifest.json");
    let m: Value = serde_json::from_str(&text).expect("manifest is JSON");
    let ptx = ptx.unwrap_or_else(|| m["ptx"].as_str().expect("ptx"));
    let tag = dir.file_name().unwrap().to_string_lossy().to_string();
    let out_dir = std::env::temp_dir().join(format!(
        "ptxemu-fx-{tag}-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&out_dir).expect("temp dir");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptxemu"));
    cmd.arg("run").arg(root.join(ptx)).args([
        "--grid",
        m["grid"].as_str().expect("grid"),
        "--json",
    ]);
    for (key, opt) in [
        ("block", "--block"),
        ("shared_bytes", "--shared-bytes"),
        ("kernel", "--kernel"),
    ] {
        match &m[key] {
            Value::String(s) => {
                cmd.args([opt, s]);
            }
            Value::Number(n) => {
                cmd.args([opt, &n.to_string()]);
            }
            _ => {}
        }
    }
    for a in m["args"].as_array().expect("args") {
        let spec = a.as_str().expect("arg");
        cmd.arg("--arg")
            .arg(spec.replace("file=", &format!("file={}/", dir.display())));
    }
    let dumps = m["dumps"].as_array().expect("dumps");
    for (k, d) in dumps.iter().enumerate() {
        let path = out_dir.join(format!("{k}.bin"));
        cmd.arg("--dump")
            .arg(format!("{}={}", d["arg"], path.display()));
    }
    let line = format!("{cmd:?}");
    let out = cmd.output().expect("ptxemu runs");
    assert!(
        out.status.success(),
        "{line}\nexit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    // the proxy checker and the non-coherent-load check found nothing
    assert_eq!(report["faults"], serde_json::json!([]), "{line}");
    assert_eq!(report["nc_conflicts"], serde_json::json!([]), "{line}");
    for (k, d) in dumps.iter().enumerate() {
        let dtype = d["dtype"].as_str().expect("dtype");
        let (rtol, atol) = (d["rtol"].as_f64().unwrap(), d["atol"].as_f64().unwrap());
        let got = decode(
            &std::fs::read(out_dir.join(format!("{k}.bin"))).unwrap(),
            dtype,
        );
        let want_file = d["expected"].as_str().unwrap();
        let want = decode(&std::fs::read(dir.join(want_file)).unwrap(), dtype);
        assert_eq!(got.len(), want.len(), "{want_file}: length");
        let bad: Vec<usize> = (0..got.len())
            .filter(|&i| !close(got[i], want[i], rtol, atol))
            .collect();
        assert!(
            bad.is_empty(),
            "{tag}/{want_file}: {} of {} elements outside rtol {rtol}, atol {atol}; first at {}: got {}, want {}\nreproduce: {line}",
            bad.len(),
            got.len(),
            bad[0],
            got[bad[0]],
            want[bad[0]]
        );
    }
    std::fs::remove_dir_all(&out_dir).ok();
    report
}

/// The names of the folders under `dir` (files are skipped), sorted, with `.` and `-` as `_`
/// (test names).
pub fn listed_on_disk(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("fixture folder")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .replace(['.', '-'], "_")
        })
        .collect();
    v.sort();
    v
}
