//! The H100's floating-point `mma.sync` results recorded by `ptxemu difftest --record`
//! (`litmus/hardware/nvidia-h100/numerics/*.jsonl`, see the README there): every recorded
//! kernel is regenerated from its seed, run on ptxemu as on an H100 (`--gpu h100`; the
//! records of sm_80 modules ran on the H100 too) and compared with the recorded GPU words.
//! Every form ptxemu models must agree bit for bit; a form it cannot match yet is listed in
//! `NOT_EXACT` with its counts and must stay within difftest's bound.

mod fixture_common;

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

/// `ptxemu run --gpu h100` on the sm_80 build of every mma fixture that has an H100 result
/// (`expected_sm90`, the H100's own dump of the fixture; its sm_80 and sm_90 builds gave the
/// same bytes there): sm_80 code run as on an H100 gives the H100's bytes, and run as its
/// target names (an A100) it does not, so the option is what makes the difference.
#[test]
fn sm80_builds_run_with_gpu_h100_give_the_h100_dumps() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/mma");
    let mut checked = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let dir = entry.unwrap().path();
        let (ptx, mf) = (dir.join("sm80.ptx"), dir.join("manifest.json"));
        if !ptx.exists() || !mf.exists() {
            continue;
        }
        let m = fixture_common::manifest(&dir);
        for (k, d) in m["dumps"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let Some(h100) = d["expected_sm90"].as_str() else {
                continue;
            };
            let want = std::fs::read(dir.join(h100)).unwrap();
            let run = |gpu: Option<&str>| {
                let got = std::env::temp_dir().join(format!(
                    "ptxemu-gpu-h100-{}-{k}-{}-{}.bin",
                    dir.file_name().unwrap().to_string_lossy(),
                    gpu.unwrap_or("target"),
                    std::process::id()
                ));
                let mut cmd = fixture_common::launch_command(&dir, &ptx, &m);
                cmd.arg("--dump")
                    .arg(format!("{}={}", d["arg"], got.display()));
                if let Some(g) = gpu {
                    cmd.args(["--gpu", g]);
                }
                let o = cmd.output().unwrap();
                assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
                let bytes = std::fs::read(&got).unwrap();
                let _ = std::fs::remove_file(&got);
                bytes
            };
            assert_eq!(
                run(Some("h100")),
                want,
                "{} dump {k} with --gpu h100",
                dir.display()
            );
            if want != std::fs::read(dir.join(d["expected"].as_str().unwrap())).unwrap() {
                assert_ne!(run(None), want, "{} dump {k} by target", dir.display());
            }
            checked += 1;
        }
    }
    assert!(checked >= 6, "only {checked} fixtures with an H100 result");
}
