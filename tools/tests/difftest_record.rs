//! `ptxemu difftest --record` and `--replay` without a GPU: with the emulator-backed host
//! standing in for the GPU, a recorded run replays bit for bit; when that host corrupts the
//! kernels of one form, the replay finds exactly those kernels inexact.

use std::path::PathBuf;
use std::process::{Command, Output};

fn ptxemu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxemu"))
        .args(args)
        .output()
        .unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxemu-record-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Records a run of `host` (sm_90a, narrow inputs) and replays it: the replay's summary.
fn record_and_replay(name: &str, host: &str) -> (serde_json::Value, Option<i32>, String) {
    let d = scratch(name);
    let rec = d.join("run.jsonl");
    let o = ptxemu(&[
        "difftest",
        "--family",
        "mma",
        "--arch",
        "sm_90a",
        "--mma-inputs",
        "narrow",
        "--seed",
        "5",
        "--count",
        "150",
        "--per-module",
        "50",
        "--host",
        host,
        "--out",
        d.join("run").to_str().unwrap(),
        "--record",
        rec.to_str().unwrap(),
    ]);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(&rec).unwrap();
    let head: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(head["arch"], "sm_90a");
    assert_eq!(head["inputs"], "narrow");
    let rp = d.join("replay");
    let o = ptxemu(&[
        "difftest",
        "--replay",
        rec.to_str().unwrap(),
        "--out",
        rp.to_str().unwrap(),
    ]);
    let s =
        serde_json::from_str(&std::fs::read_to_string(rp.join("replay.json")).unwrap()).unwrap();
    (
        s,
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into(),
    )
}

#[test]
fn a_recorded_emulator_run_replays_bit_for_bit() {
    let exe = env!("CARGO_BIN_EXE_ptxemu");
    let (s, code, out) = record_and_replay("same", &format!("{exe} difftest-host"));
    assert_eq!(code, Some(0), "{out}");
    let n = s["kernels"].as_u64().unwrap();
    assert!(n > 30, "only {n} kernels with float results recorded");
    assert_eq!(s["kernels_exact"], n);
    assert!(s["forms"]
        .as_object()
        .unwrap()
        .keys()
        .any(|k| k.contains("e4m3")));
}

#[test]
fn a_corrupted_form_is_found_inexact_by_the_replay() {
    let exe = env!("CARGO_BIN_EXE_ptxemu");
    let host = format!("{exe} difftest-host --perturb .bf16.bf16.");
    let (s, code, out) = record_and_replay("perturbed", &host);
    assert_eq!(code, Some(1), "{out}");
    for (form, t) in s["forms"].as_object().unwrap() {
        let (k, exact) = (t["kernels"].as_u64().unwrap(), t["kernels_exact"].as_u64());
        if form.contains(".bf16.bf16.") {
            assert_eq!(exact, Some(0), "{form}: {t}");
            // Only thread 0's word 0 is corrupted: within the bound.
            assert_eq!(t["kernels_within_bound"], k, "{form}: {t}");
            assert_eq!(
                t["words"].as_u64().unwrap() - t["words_exact"].as_u64().unwrap(),
                k
            );
        } else {
            assert_eq!(exact, Some(k), "{form}: {t}");
        }
    }
}
