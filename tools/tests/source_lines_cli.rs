//! `ptxemu run` on PTX with `.file`/`.loc` (nvcc `-lineinfo`, tests/fixtures/lineinfo): a fault
//! and every `--race` report name the CUDA source line (and column) beside the PTX line, in
//! text and in `--json`. The expected lines are found in `lineinfo.cu` by their text, not taken
//! from ptxemu.

mod fixture_common;

use fixture_common::ptxemu_in_workspace as ptxemu;
use serde_json::Value as Json;

const PTX: &str = "tests/fixtures/lineinfo/lineinfo.ptx";

/// The 1-based line of `lineinfo.cu` holding `text`, and the 1-based column where the
/// statement starts (its first non-blank character, as nvcc's `.loc` gives it).
fn cu_line(text: &str) -> (u64, u64) {
    let path = fixture_common::workspace().join("tests/fixtures/lineinfo/lineinfo.cu");
    let src = std::fs::read_to_string(path).unwrap();
    let (i, l) = src
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(text))
        .unwrap_or_else(|| panic!("`{text}` is in lineinfo.cu"));
    let col = l.len() - l.trim_start().len() + 1;
    (i as u64 + 1, col as u64)
}

fn run(kernel: &str, block: &str, args: &[&str], extra: &[&str]) -> std::process::Output {
    let mut v = vec![
        "run", PTX, "--kernel", kernel, "--grid", "1", "--block", block,
    ];
    for a in args {
        v.extend(["--arg", a]);
    }
    v.extend(extra);
    ptxemu(&v)
}

const OOB_ARGS: &[&str] = &["f32[32]:fill=1", "f32[32]:zero", "s32:32"];

#[test]
fn a_fault_names_the_cuda_line_and_the_inlined_call_site() {
    let (load, load_col) = cu_line("return p[i] * 2.0f;");
    let (call, _) = cu_line("out[i] = fetch(in, i + 1);");
    let o = run("read_past_end", "32", OOB_ARGS, &[]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    let want = format!("\n  source lineinfo.cu:{load}:{load_col}, inlined at lineinfo.cu:{call}:");
    assert!(err.contains(&want), "{err}");
    assert!(
        err.contains("at tests/fixtures/lineinfo/lineinfo.ptx:"),
        "{err}"
    );

    let o = run("read_past_end", "32", OOB_ARGS, &["--json"]);
    let j: Json = serde_json::from_slice(&o.stdout).unwrap();
    let s = &j["faults"][0]["source"];
    assert_eq!(s["file"], "lineinfo.cu");
    assert_eq!(s["line"], load);
    assert_eq!(s["column"], load_col);
    assert_eq!(s["inlined_at"][0]["line"], call);
    assert_eq!(s["inlined_at"].as_array().unwrap().len(), 1);
}

#[test]
fn race_reports_name_the_cuda_line_of_both_accesses() {
    let (line, col) = cu_line("out[0] += in[i];");
    let args = &["f32[64]:fill=1", "f32[1]:zero"];
    let o = run("racy_sum", "64", args, &["--race"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    let beside = format!(" (lineinfo.cu:{line}:{col}): st.global.f32");
    assert!(err.contains(&beside), "{err}");

    let o = run("racy_sum", "64", args, &["--race", "--json"]);
    let j: Json = serde_json::from_slice(&o.stdout).unwrap();
    let races = j["races"].as_array().unwrap();
    assert!(!races.is_empty());
    for r in races {
        for a in [&r["first"], &r["second"]] {
            assert_eq!(a["source"]["file"], "lineinfo.cu");
            assert_eq!(a["source"]["line"], line, "{a}");
            assert_eq!(a["source"]["column"], col);
        }
    }
}

#[test]
fn ptx_without_loc_reports_no_source() {
    let o = ptxemu(&[
        "run",
        "tests/fixtures/race_kernels/message_passing.ptx",
        "--kernel",
        "mp_fence_cta",
        "--grid",
        "2",
        "--block",
        "32",
        "--arg",
        "u32[1]:zero",
        "--arg",
        "u32[1]:zero",
        "--race",
        "--json",
    ]);
    let j: Json = serde_json::from_slice(&o.stdout).unwrap();
    let races = j["races"].as_array().expect("races");
    assert!(!races.is_empty(), "mp_fence_cta is racy");
    assert!(races[0]["first"]["source"].is_null(), "{}", races[0]);
    assert!(races[0]["second"]["source"].is_null());
}
