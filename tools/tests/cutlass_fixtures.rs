//! CUTLASS 4.2 and CuTe kernels as nvcc 13 emits them (tests/fixtures/cutlass), launched as a
//! CUTLASS user launches them with ptxemu: from the command line (`--buffer`s for the tensors,
//! the Params bytes CUTLASS's host code made as `bytes[N]:file=params.bin{…}` with the buffer
//! addresses and tensor maps patched in) and from the fixture's launch plan, each compared
//! with numpy's result of the same inputs (`expected/`, exact: the inputs are small integers,
//! so every sum is exact in the kernels' arithmetic).
//!
//! The clusterlaunchcontrol kernels (CUTLASS's default sm_100 scheduler) also run with every
//! try_cancel failing and with seeded draws: each tile is computed exactly once either way, so
//! the result is the same.

mod fixture_common;

use std::path::{Path, PathBuf};
use std::process::Command;

use fixture_common::{scratch, stderr, stdout};
use serde_json::Value;

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/cutlass")
        .join(name)
}

fn launch_json(name: &str) -> Value {
    let text = std::fs::read_to_string(dir(name).join("launch.json")).expect("launch.json");
    serde_json::from_str(&text).expect("launch.json is JSON")
}

fn shape(v: &Value) -> String {
    v.as_array()
        .expect("a shape")
        .iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Runs the fixture from the command line, in its folder (its specs' paths are relative to
/// it), expecting exit status 0; returns (exit status, JSON report, the output buffer's bytes).
fn run_cli(name: &str, extra: &[&str]) -> (Option<i32>, Value, Vec<u8>) {
    let (code, json, out, err) = run_cli_any(name, extra);
    assert!(code == Some(0), "{name}: exit {code:?}\n{err}\n{json}");
    (code, json, out)
}

/// As `run_cli`, whatever the exit status; also returns stderr.
fn run_cli_any(name: &str, extra: &[&str]) -> (Option<i32>, Value, Vec<u8>, String) {
    let l = launch_json(name);
    let out = scratch(
        "cutlass",
        &format!("{name}-{}", extra.join("_").replace([':', '-'], "")),
    )
    .join("out.bin");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptxemu"));
    cmd.current_dir(dir(name));
    cmd.args(["run", "kernel.ptx", "--json"]);
    cmd.args(["--grid", &shape(&l["grid"]), "--block", &shape(&l["block"])]);
    cmd.args(["--cluster", &shape(&l["cluster"])]);
    cmd.args(["--shared-bytes", &l["shared_bytes"].to_string()]);
    cmd.args(["--gpu", l["gpu"].as_str().unwrap()]);
    for (k, v) in l["buffers"].as_object().unwrap() {
        cmd.arg("--buffer")
            .arg(format!("{k}={}", v.as_str().unwrap()));
    }
    for a in l["args"].as_array().unwrap() {
        cmd.arg("--arg").arg(a.as_str().unwrap());
    }
    let o = l["output"]["buffer"].as_str().unwrap();
    cmd.arg("--dump").arg(format!("{o}={}", out.display()));
    cmd.args(extra);
    let r = cmd.output().expect("ptxemu runs");
    let json: Value = serde_json::from_str(stdout(&r).trim()).unwrap_or(Value::Null);
    (
        r.status.code(),
        json,
        std::fs::read(&out).unwrap_or_default(),
        stderr(&r),
    )
}

/// Runs the fixture's plan in a scratch folder (dumps go to the current folder).
fn run_plan(name: &str) -> Vec<u8> {
    let l = launch_json(name);
    let work = scratch("cutlass-plan", name);
    let r = Command::new(env!("CARGO_BIN_EXE_ptxemu"))
        .current_dir(&work)
        .args(["run", "--plan"])
        .arg(dir(name).join("plan.json"))
        .args(["--gpu", l["gpu"].as_str().unwrap()])
        .output()
        .expect("ptxemu runs");
    assert_eq!(r.status.code(), Some(0), "{name} plan: {}", stderr(&r));
    let o = l["output"]["buffer"].as_str().unwrap();
    std::fs::read(work.join(format!("{o}.bin"))).expect("the plan's dump")
}

fn expected(name: &str) -> Vec<u8> {
    let l = launch_json(name);
    std::fs::read(dir(name).join(l["output"]["file"].as_str().unwrap())).expect("expected")
}

/// The first element where `got` and `want` differ, for the message.
fn first_difference(name: &str, got: &[u8], want: &[u8]) -> String {
    let l = launch_json(name);
    let size = match l["output"]["dtype"].as_str().unwrap() {
        "f16" => 2,
        _ => 4,
    };
    let n = l["output"]["shape"][1].as_u64().unwrap() as usize;
    match got
        .chunks(size)
        .zip(want.chunks(size))
        .position(|(a, b)| a != b)
    {
        Some(i) => format!(
            "element ({}, {}): {:?} instead of {:?} ({} bytes vs {})",
            i / n,
            i % n,
            &got[i * size..(i + 1) * size],
            &want[i * size..(i + 1) * size],
            got.len(),
            want.len()
        ),
        None => format!("{} bytes vs {}", got.len(), want.len()),
    }
}

fn check(name: &str) {
    let want = expected(name);
    let (_, json, got) = run_cli(name, &[]);
    assert!(
        got == want,
        "{name} (CLI): {}",
        first_difference(name, &got, &want)
    );
    assert_eq!(json["faults"], Value::Array(Vec::new()), "{name}: {json}");
    let planned = run_plan(name);
    assert!(
        planned == want,
        "{name} (plan): {}",
        first_difference(name, &planned, &want)
    );
}

/// The dynamic-scheduler kernels also run with every cancel failing and with seeded draws.
fn check_every_cancel_policy(name: &str) {
    check(name);
    let want = expected(name);
    let (_, json, got) = run_cli(name, &["--try-cancel", "fail"]);
    assert!(
        got == want,
        "{name} (fail): {}",
        first_difference(name, &got, &want)
    );
    assert_eq!(json["clusters_canceled"], 0, "{json}");
    for seed in ["random:1", "random:2"] {
        let (_, json, got) = run_cli(name, &["--try-cancel", seed, "--threads", "1"]);
        assert!(
            got == want,
            "{name} ({seed}): {}",
            first_difference(name, &got, &want)
        );
        assert_eq!(json["try_cancel"], seed);
    }
    // With one cluster resident at a time (a full GPU), the running cluster cancels the
    // launch of the others and takes their tiles.
    let one = launch_json(name)["cluster"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap())
        .product::<u64>()
        .to_string();
    let (_, json, got) = run_cli(name, &["--resident-ctas", &one]);
    assert!(
        got == want,
        "{name} (resident): {}",
        first_difference(name, &got, &want)
    );
    let clusters: u64 = launch_json(name)["grid"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap())
        .product::<u64>()
        / one.parse::<u64>().unwrap();
    assert_eq!(
        json["clusters_canceled"].as_u64(),
        Some(clusters - 1),
        "{name}: the one resident cluster cancels every other: {json}"
    );
}

#[test]
fn cute_hgemm_sm80() {
    check("cute_hgemm_sm80");
}

#[test]
fn cutlass2_f16_sm80() {
    check("cutlass2_f16_sm80");
}

#[test]
fn cutlass2_s8_sm80() {
    check("cutlass2_s8_sm80");
}

#[test]
fn sm90_ws_c1() {
    check("sm90_ws_c1");
}

#[test]
fn sm90_coop_c2x1() {
    check("sm90_coop_c2x1");
}

#[test]
fn sm90_pingpong_c1x2() {
    check("sm90_pingpong_c1x2");
}

#[test]
fn sm100_1sm_static() {
    check("sm100_1sm_static");
}

#[test]
fn sm100_1sm_clc() {
    check_every_cancel_policy("sm100_1sm_clc");
}

#[test]
fn sm100_2sm_clc() {
    check_every_cancel_policy("sm100_2sm_clc");
}

#[test]
fn sm100_2sm_static() {
    check("sm100_2sm_static");
}

/// docs/cutlass.md: `--tmem-check strict` faults on CUTLASS 4.2's sm_100 epilogue, which reads
/// the accumulators with `tcgen05.ld` after waiting on the MMA's commit barrier but without
/// `tcgen05.fence::after_thread_sync`. The PTX is the reference: it holds no such fence at
/// all, so the first accumulator load breaks the ISA's rule, and the fault must name a
/// `tcgen05.ld` line of the file. The default check (`on`) runs them clean (`check` above).
#[test]
fn strict_tmem_check_faults_on_the_sm100_epilogue() {
    for name in ["sm100_1sm_static", "sm100_2sm_clc"] {
        let ptx = std::fs::read_to_string(dir(name).join("kernel.ptx")).expect("kernel.ptx");
        assert!(
            !ptx.contains("tcgen05.fence::after_thread_sync") && ptx.contains("tcgen05.mma"),
            "{name}: the premise (MMAs, no after_thread_sync fence) no longer holds"
        );
        let (code, json, _, err) = run_cli_any(name, &["--tmem-check", "strict"]);
        assert_eq!(code, Some(1), "{name}: {err}");
        let faults = json["faults"].as_array().expect("faults");
        assert_eq!(faults.len(), 1, "{name}: {json}");
        let line = faults[0]["line"].as_u64().expect("a line") as usize;
        let text = ptx.lines().nth(line - 1).expect("the line is in the file");
        assert!(
            text.trim_start().starts_with("tcgen05.ld."),
            "{name}: line {line} is `{text}`"
        );
        let message = faults[0]["message"].as_str().unwrap();
        assert!(
            message.contains("rule tcgen05-mma-visibility")
                && message.contains("tcgen05.fence::after_thread_sync"),
            "{name}: {message}"
        );
    }
}

#[test]
fn every_fixture_folder_has_a_test() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/cutlass");
    let mut on_disk: Vec<String> = fixture_common::folders(&root)
        .into_iter()
        .filter(|n| n != "gen")
        .collect();
    on_disk.sort();
    let mut listed = vec![
        "cute_hgemm_sm80",
        "cutlass2_f16_sm80",
        "cutlass2_s8_sm80",
        "sm100_1sm_clc",
        "sm100_1sm_static",
        "sm100_2sm_clc",
        "sm100_2sm_static",
        "sm90_coop_c2x1",
        "sm90_pingpong_c1x2",
        "sm90_ws_c1",
    ];
    listed.sort();
    assert_eq!(on_disk, listed);
}
