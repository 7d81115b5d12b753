//! The H100's floating-point `mma.sync` results recorded by `ptxemu difftest --record`
//! (`litmus/hardware/nvidia-h100/numerics/*.jsonl`, see the README there): every recorded
//! kernel is regenerated from its seed, run on ptxemu as on an H100 (`--gpu h100`; the
//! records of sm_80 modules ran on the H100 too) and compared with the recorded GPU words.
//! Every form ptxemu models must agree bit for bit; a form it cannot match yet is listed in
//! `NOT_EXACT` with its counts and must stay within difftest's bound.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Forms that do not agree bit for bit yet: (record file, form, kernels not bit-exact).
const NOT_EXACT: &[(&str, &str, u64)] = &[];

fn records() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../litmus/hardware/nvidia-h100/numerics");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    v.sort();
    v
}

#[test]
fn recorded_h100_mma_results_are_reproduced() {
    let recs = records();
    assert!(!recs.is_empty(), "no recorded H100 numerics");
    for rec in recs {
        let name = rec.file_name().unwrap().to_string_lossy().to_string();
        let out = std::env::temp_dir().join(format!("ptxemu-h100-{name}-{}", std::process::id()));
        let o = Command::new(env!("CARGO_BIN_EXE_ptxemu"))
            .args(["difftest", "--replay"])
            .arg(&rec)
            .args(["--gpu", "h100", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        let text = std::fs::read_to_string(out.join("replay.json"))
            .unwrap_or_else(|e| panic!("{name}: {e}: {}", String::from_utf8_lossy(&o.stderr)));
        let s: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(
            s["kernels"].as_u64().unwrap() > 100,
            "{name}: too few kernels"
        );
        for (form, t) in s["forms"].as_object().unwrap() {
            let n = t["kernels"].as_u64().unwrap();
            let exact = t["kernels_exact"].as_u64().unwrap();
            let allowed = NOT_EXACT
                .iter()
                .find(|(f, fm, _)| *f == name && fm == form)
                .map_or(0, |x| x.2);
            assert_eq!(
                n - exact,
                allowed,
                "{name}: {form}: {} of {n} kernels not bit-exact: {}",
                n - exact,
                t["first_differences"]
            );
            assert_eq!(t["kernels_beyond_bound"], 0, "{name}: {form}: {t}");
        }
        let _ = std::fs::remove_dir_all(&out);
    }
}
