//! The race corpus of `tests/fixtures/race/` (issue 18): GPUVerify's CUDA kernels and our own,
//! compiled by nvcc 13.5, each PTX file with the verdict `ptxemu run --race` must give.
//!
//! - `manifest_matches_the_files`: every PTX file parses and validates (`ptxemu check`), has
//!   the manifest's kernel, and every source folder or file is in the manifest.
//! - `every_launch_runs`: every entry runs to completion without `--race` (so the launch
//!   shapes and arguments are right before races are judged).
//! - `race_verdicts`: every racy PTX file is reported (exit 1, a non-empty `races` array),
//!   every race-free one is silent (exit 0, no race). `RACE_CORPUS_ONLY=TEXT` judges only
//!   the PTX files whose path contains TEXT.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/race")
}

fn manifest() -> Vec<Value> {
    let path = corpus().join("manifest.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let m: Value = serde_json::from_str(&text).expect("manifest.json is JSON");
    m["entries"].as_array().expect("manifest `entries`").clone()
}

fn field<'a>(e: &'a Value, k: &str) -> &'a str {
    e[k].as_str()
        .unwrap_or_else(|| panic!("entry {}: field `{k}` must be a string", e["name"]))
}

/// (PTX file, expected verdict) of an entry.
fn ptx_files(e: &Value) -> Vec<(String, String)> {
    e["ptx"]
        .as_array()
        .unwrap_or_else(|| panic!("entry {}: `ptx` must be a list", e["name"]))
        .iter()
        .map(|p| {
            (
                field(p, "file").to_string(),
                field(p, "expected").to_string(),
            )
        })
        .collect()
}

/// `ptxemu run` of one PTX file of an entry, with `extra` flags.
fn launch(e: &Value, file: &str, extra: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptxemu"));
    cmd.arg("run").arg(corpus().join(file)).args([
        "--kernel",
        field(e, "kernel"),
        "--grid",
        field(e, "grid"),
        "--block",
        field(e, "block"),
    ]);
    for a in e["args"].as_array().expect("args") {
        cmd.args(["--arg", a.as_str().expect("an --arg spec")]);
    }
    cmd.args(extra).output().expect("ptxemu runs")
}

#[test]
fn manifest_matches_the_files() {
    let entries = manifest();
    assert!(
        entries.len() >= 50,
        "the corpus has {} entries",
        entries.len()
    );
    let mut sources = Vec::new();
    for e in &entries {
        let name = field(e, "name");
        let src = field(e, "source");
        assert!(corpus().join(src).exists(), "{name}: {src} is missing");
        sources.push(src.to_string());
        assert!(
            matches!(e["schedule_dependent"], Value::Bool(_)),
            "{name}: schedule_dependent"
        );
        for (file, expected) in ptx_files(e) {
            assert!(
                expected == "race" || expected == "race-free",
                "{name}: {file}: expected `{expected}`"
            );
            let path = corpus().join(&file);
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
            let kernel = field(e, "kernel");
            assert!(
                text.lines()
                    .any(|l| l.trim_start().starts_with(".visible .entry")
                        && l.contains(&format!(".entry {kernel}("))),
                "{name}: {file} has no kernel `{kernel}`"
            );
            let out = Command::new(env!("CARGO_BIN_EXE_ptxemu"))
                .args(["check", "-q"])
                .arg(&path)
                .output()
                .expect("ptxemu check runs");
            assert!(
                out.status.success(),
                "ptxemu check {file}:\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    // Every kernel source on disk is in the manifest, and the licence of the vendored ones.
    assert!(corpus().join("gpuverify/LICENSE.TXT").exists());
    let mut on_disk = Vec::new();
    for dir in ["gpuverify", "own"] {
        for f in std::fs::read_dir(corpus().join(dir)).expect("corpus folder") {
            let p = f.expect("entry").path();
            if p.is_dir() {
                on_disk.push(format!(
                    "{dir}/{}/kernel.cu",
                    p.file_name().unwrap().to_string_lossy()
                ));
            } else if p.extension().is_some_and(|x| x == "cu") {
                on_disk.push(format!(
                    "{dir}/{}",
                    p.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    for s in &on_disk {
        assert!(sources.contains(s), "{s} is not in manifest.json");
    }
}

#[test]
fn every_launch_runs() {
    for e in manifest() {
        let want = e["plain_exit"].as_i64().unwrap_or(0) as i32;
        for (file, _) in ptx_files(&e) {
            let out = launch(&e, &file, &[]);
            assert_eq!(
                out.status.code(),
                Some(want),
                "{file} ({}): {}",
                field(&e, "kernel"),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

/// Checks one access of a race report against the contract.
fn check_access(a: &Value, what: &str) -> Result<(), String> {
    for k in ["line", "instruction", "cta", "thread", "address"] {
        if a.get(k).is_none() {
            return Err(format!("{what} has no `{k}`"));
        }
    }
    for k in ["cta", "thread"] {
        if a[k].as_array().map(Vec::len) != Some(3) {
            return Err(format!("{what}.{k} is not [x,y,z]"));
        }
    }
    Ok(())
}

/// The verdict of one PTX file; Err names what is wrong.
fn judge(e: &Value, file: &str, expected: &str) -> Result<(), String> {
    let sched = e["schedule_dependent"].as_bool().unwrap_or(false);
    let mut flags = vec!["--race", "--json"];
    if sched {
        flags.extend(["--schedule", "random", "--seed", "1", "--runs", "16"]);
    }
    let out = launch(e, file, &flags);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("unexpected argument '--race'")
        || stderr.contains("unexpected argument '--schedule'")
    {
        panic!("ptxemu run does not know --race/--schedule yet (branch race): {stderr}");
    }
    let json: Value = serde_json::from_slice(&out.stdout)
        .map_err(|err| format!("stdout is not one JSON object ({err}); stderr: {stderr}"))?;
    let races = json["races"]
        .as_array()
        .ok_or_else(|| format!("--json has no `races` array; stderr: {stderr}"))?;
    let code = out.status.code();
    match expected {
        "race" => {
            if code != Some(1) || races.is_empty() {
                return Err(format!(
                    "expected a race: exit {code:?}, {} race(s); stderr: {stderr}",
                    races.len()
                ));
            }
            for (i, r) in races.iter().enumerate() {
                check_access(&r["first"], &format!("races[{i}].first"))?;
                check_access(&r["second"], &format!("races[{i}].second"))?;
                if r["reason"].as_str().is_none_or(str::is_empty) {
                    return Err(format!("races[{i}] has no reason"));
                }
            }
            if !sched
                && !races
                    .iter()
                    .any(|r| r["seen"] == "every" || r.get("seen").is_none())
            {
                return Err("a schedule-independent race is not seen on every schedule".into());
            }
        }
        _ => {
            if code != Some(0) || !races.is_empty() {
                let first = races.first().map(|r| r.to_string()).unwrap_or_default();
                return Err(format!(
                    "expected no race: exit {code:?}, {} race(s), first {first}; stderr: {stderr}",
                    races.len()
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn race_verdicts() {
    let only = std::env::var("RACE_CORPUS_ONLY").unwrap_or_default();
    let mut failures = Vec::new();
    let mut judged = 0;
    for e in manifest() {
        for (file, expected) in ptx_files(&e) {
            if !file.contains(&only) {
                continue;
            }
            judged += 1;
            if let Err(why) = judge(&e, &file, &expected) {
                failures.push(format!(
                    "{file} ({}, expected {expected}): {why}",
                    field(&e, "kernel")
                ));
            }
        }
    }
    assert!(judged > 0, "RACE_CORPUS_ONLY={only} matches no PTX file");
    assert!(
        failures.is_empty(),
        "{} of {judged} PTX files judged wrongly:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
