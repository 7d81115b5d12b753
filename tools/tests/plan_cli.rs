//! `ptxemu run --set/--dump-var` (module variables from the host) and `ptxemu run --plan`
//! (docs/plan-format.md), end to end on the hand-written kernels of `data/plan/vars.ptx`.
//! Every expected value is worked out by hand from the kernels' few lines (stated beside each
//! check), not taken from ptxemu.

mod fixture_common;

use fixture_common::{assert_exit, assert_stderr_has, stderr};

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

/// Runs `ptxemu args`; with `--plan P`, in P's folder, since a plan writes only below the
/// folder ptxemu runs in (its dumps here are absolute paths into that scratch folder).
fn ptxemu(args: &[&str]) -> Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_ptxemu"));
    cmd.args(args);
    if let Some(i) = args.iter().position(|a| *a == "--plan") {
        if let Some(dir) = args.get(i + 1).and_then(|p| Path::new(p).parent()) {
            cmd.current_dir(dir);
        }
    }
    cmd.output().expect("ptxemu runs")
}

fn ptx() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/plan/vars.ptx")
}

fn scratch(name: &str) -> PathBuf {
    fixture_common::scratch("plan", name)
}

fn json(o: &Output) -> Value {
    let text = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "exactly one JSON line: {text}");
    serde_json::from_str(lines[0]).expect("JSON")
}

fn u32s(path: &Path) -> Vec<u32> {
    std::fs::read(path)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn f32s(path: &Path) -> Vec<f32> {
    std::fs::read(path)
        .unwrap()
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Writes plan `name` into `dir` with a copy of the module beside it (`$PTX` names it): a
/// plan's files stay inside its folder (docs/threat-model.md).
fn write_plan(dir: &Path, name: &str, text: &str) -> PathBuf {
    std::fs::copy(ptx(), dir.join("vars.ptx")).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text.replace("$PTX", "vars.ptx")).unwrap();
    p
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

// ---- --set / --dump-var ----------------------------------------------------------------

#[test]
fn set_writes_a_const_prefix_and_json_reports_the_bytes() {
    // copy_const copies c_k[0..8] (initialised 1..8) to the buffer; --set writes the first
    // three elements only, as cudaMemcpyToSymbol with a count of 12 bytes does.
    let o = ptxemu(&[
        "run",
        path(&ptx()),
        "--kernel",
        "copy_const",
        "--block",
        "8",
        "--arg",
        "f32[8]:zero",
        "--arg",
        "u32:8",
        "--set",
        "c_k=f32[3]:[10,20,30]",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j = json(&o);
    let vals: Vec<f64> = j["buffers"][0]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(vals, [10.0, 20.0, 30.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    assert_eq!(j["sets"][0]["name"], "c_k");
    assert_eq!(j["sets"][0]["space"], "const");
    assert_eq!(j["sets"][0]["bytes"], 12);
    assert_eq!(j["sets"][0]["size"], 32);
}

#[test]
fn set_from_a_file_and_dump_var_after_the_launch() {
    let d = scratch("file");
    let k: Vec<f32> = vec![0.5, -1.0, 2.25, 3.0, -4.5, 5.0, 6.125, 7.0];
    let bytes: Vec<u8> = k.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(d.join("k.bin"), &bytes).unwrap();
    let out = d.join("out.bin");
    let kdump = d.join("k_after.bin");
    let o = ptxemu(&[
        "run",
        path(&ptx()),
        "--kernel",
        "copy_const",
        "--block",
        "8",
        "--arg",
        "f32[8]:zero",
        "--arg",
        "u32:8",
        "--set",
        &format!("c_k=f32[8]:file={}", d.join("k.bin").display()),
        "--dump",
        &format!("0={}", out.display()),
        "--dump-var",
        &format!("c_k={}", kdump.display()),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(f32s(&out), k);
    assert_eq!(std::fs::read(&kdump).unwrap(), bytes);
    // A .global variable: g_acc starts at 5 (its initialiser); --set makes it 100 and
    // add_acc adds 7, so the dump holds 107.
    let g = d.join("g.bin");
    let o = ptxemu(&[
        "run",
        path(&ptx()),
        "--kernel",
        "add_acc",
        "--arg",
        "u32:7",
        "--set",
        "g_acc=u32:100",
        "--dump-var",
        &format!("g_acc={}", g.display()),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(u32s(&g), [107]);
    // Without --set the initialiser stays: 5 + 7.
    let o = ptxemu(&[
        "run",
        path(&ptx()),
        "--kernel",
        "add_acc",
        "--arg",
        "u32:7",
        "--dump-var",
        &format!("g_acc={}", g.display()),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(u32s(&g), [12]);
}

#[test]
fn bad_sets_are_refused_naming_the_variable_and_sizes() {
    let cases: [(&str, &[&str]); 4] = [
        ("nope=u32:1", &["`nope`", "c_k, g_acc"]),
        ("s_tmp=u32:1", &["`s_tmp`", ".shared", "16 bytes"]),
        ("c_k=f32[9]:zero", &["`c_k`", "32 bytes", "36 bytes"]),
        ("g_acc=u64:1", &["`g_acc`", "4 bytes", "8 bytes"]),
    ];
    for (set, want) in cases {
        let o = ptxemu(&[
            "run",
            path(&ptx()),
            "--kernel",
            "add_acc",
            "--arg",
            "u32:7",
            "--set",
            set,
        ]);
        assert_eq!(o.status.code(), Some(2), "{set}: {}", stderr(&o));
        for w in want {
            assert!(stderr(&o).contains(w), "{set}: `{w}` in {}", stderr(&o));
        }
    }
    let o = ptxemu(&[
        "run",
        path(&ptx()),
        "--kernel",
        "add_acc",
        "--arg",
        "u32:7",
        "--dump-var",
        "s_tmp=/dev/null",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_stderr_has(&o, "`s_tmp`");
}

// ---- --plan ----------------------------------------------------------------------------

const PLAN: &str = r#"{
  "version": 1,
  "module": "$PTX",
  "buffers": { "ctr": "u32[1]:[3]", "flag": "u8[1]:zero", "acc": "u32[4]:[1,2,3,4]" },
  "steps": [
    { "set": "g_acc=u32:10" },
    { "launch": { "kernel": "inc", "grid": 1, "block": "4", "args": ["@acc"] } },
    { "repeat": { "times": 2, "steps": [
        { "launch": { "kernel": "inc", "grid": "1", "block": 4, "args": ["@acc"] } },
        { "launch": { "kernel": "add_acc", "grid": "1", "block": "1", "args": ["u32:5"] } }
    ] } },
    { "repeat": { "while_nonzero": "flag", "max": MAX, "steps": [
        { "write": "flag=u8[1]:[0]" },
        { "launch": { "kernel": "countdown", "grid": "1", "block": "1", "args": ["@ctr", "@flag"] } }
    ] } },
    { "dump": "acc=$OUT/acc.bin" },
    { "dump": "ctr=$OUT/ctr.bin" },
    { "dump_var": "g_acc=$OUT/g.bin" }
  ]
}"#;

fn plan_text(out: &Path, max: u32) -> String {
    PLAN.replace("$OUT", &out.display().to_string())
        .replace("MAX", &max.to_string())
}

#[test]
fn buffers_and_variables_persist_across_launches() {
    let d = scratch("persist");
    let p = write_plan(&d, "p.json", &plan_text(&d, 10));
    let o = ptxemu(&["run", "--plan", path(&p), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // acc = [1,2,3,4] incremented by three launches of inc.
    assert_eq!(u32s(&d.join("acc.bin")), [4, 5, 6, 7]);
    // g_acc = 10 (set) + 5 + 5 (two add_acc launches).
    assert_eq!(u32s(&d.join("g.bin")), [20]);
    // countdown from 3: rounds leave ctr 2, 1, 0; the flag is zero after the third.
    assert_eq!(u32s(&d.join("ctr.bin")), [0]);
    let j = json(&o);
    assert_eq!(j["plan"], path(&p));
    let launches: Vec<(String, Option<u64>, String, u64)> = j["launches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["step"].as_str().unwrap().to_string(),
                l["round"].as_u64(),
                l["kernel"].as_str().unwrap().to_string(),
                l["launch"].as_u64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, Option<u64>, String, u64)> = [
        ("1", None, "inc"),
        ("2.0", Some(0), "inc"),
        ("2.1", Some(0), "add_acc"),
        ("2.0", Some(1), "inc"),
        ("2.1", Some(1), "add_acc"),
        ("3.1", Some(0), "countdown"),
        ("3.1", Some(1), "countdown"),
        ("3.1", Some(2), "countdown"),
    ]
    .iter()
    .enumerate()
    .map(|(i, (s, r, k))| (s.to_string(), *r, k.to_string(), i as u64))
    .collect();
    assert_eq!(launches, want);
    // Each launch reports its buffers after it ran: after the first, acc is [2,3,4,5].
    assert_eq!(j["launches"][0]["buffers"][0]["name"], "acc");
    assert_eq!(
        j["launches"][0]["buffers"][0]["values"],
        serde_json::json!([2, 3, 4, 5])
    );
    assert_eq!(
        j["launches"][5]["buffers"][0]["values"],
        serde_json::json!([2])
    );
    assert_eq!(j["sets"][0]["name"], "g_acc");
    assert_eq!(j["sets"][0]["bytes"], 4);
    assert_eq!(j["sets"][0]["step"], "0");
    assert!(j.get("error").is_none());
}

#[test]
fn while_nonzero_stops_at_max_naming_round_and_buffer() {
    let d = scratch("max");
    let p = write_plan(&d, "p.json", &plan_text(&d, 2));
    let o = ptxemu(&["run", "--plan", path(&p), "--json"]);
    assert_exit(&o, 1);
    let e = stderr(&o);
    assert!(
        e.contains("step 3") && e.contains("`flag`") && e.contains("max 2"),
        "{e}"
    );
    let j = json(&o);
    // 5 launches before the repeat, then 2 rounds of countdown.
    assert_eq!(j["launches"].as_array().unwrap().len(), 7);
    assert_eq!(j["error"]["kind"], "repeat_max");
    assert_eq!(j["error"]["buffer"], "flag");
    assert_eq!(j["error"]["round"], 1);
    assert!(
        !d.join("acc.bin").exists(),
        "steps after the stop do not run"
    );
}

#[test]
fn a_fault_in_the_second_launch_names_step_and_launch() {
    let d = scratch("fault");
    let p = write_plan(
        &d,
        "p.json",
        &r#"{ "version": 1, "buffers": {"b": "u32[4]:zero"},
          "steps": [
            { "launch": { "kernel": "inc", "grid": "1", "block": "4", "args": ["@b"] } },
            { "repeat": { "times": 1, "steps": [
              { "launch": { "kernel": "oob", "grid": "1", "block": "4", "args": ["@b"] } } ] } },
            { "dump": "b=$OUT/b.bin" } ] }"#
            .replace("$OUT", &d.display().to_string()),
    );
    // The module comes from the command line here (the plan names none).
    let o = ptxemu(&["run", path(&ptx()), "--plan", path(&p), "--json"]);
    assert_exit(&o, 1);
    let e = stderr(&o);
    assert!(
        e.contains("plan step 1.0, round 0, launch 1: out-of-bounds"),
        "{e}"
    );
    assert!(
        e.contains("kernel `oob`") && e.contains("buffer `b`"),
        "{e}"
    );
    let j = json(&o);
    assert_eq!(j["launches"].as_array().unwrap().len(), 2);
    assert_eq!(j["launches"][1]["kernel"], "oob");
    assert_eq!(j["launches"][1]["faults"][0]["kernel"], "oob");
    assert_eq!(j["error"]["kind"], "fault");
    assert_eq!(j["error"]["step"], "1.0");
    assert_eq!(j["error"]["launch"], 1);
    assert!(!d.join("b.bin").exists(), "the plan stops at the fault");
}

fn refused(d: &Path, name: &str, plan: &str, want: &[&str]) {
    let p = write_plan(d, name, &plan.replace("$OUT", &d.display().to_string()));
    let o = ptxemu(&["run", "--plan", path(&p), "--json"]);
    assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
    let e = stderr(&o);
    for w in want {
        assert!(e.contains(w), "{name}: `{w}` in {e}");
    }
    let j = json(&o);
    assert_eq!(j["launches"], serde_json::json!([]), "{name}");
    assert!(j["error"]["message"].as_str().unwrap().contains(want[0]));
    assert!(
        !d.join("early.bin").exists(),
        "{name}: nothing runs before the refusal"
    );
}

#[test]
fn bad_plans_are_refused_before_anything_runs() {
    let d = scratch("bad");
    let head = r#"{ "version": 1, "module": "$PTX", "buffers": {"b": "u32[4]:zero", "f": "u8[1]:zero"},
      "steps": [ { "dump": "b=$OUT/early.bin" },
                 { "launch": { "kernel": "inc", "grid": "1", "block": "4", "args": ["@b"] } },"#;
    let cases: [(&str, &str, &[&str]); 13] = [
        (
            "offset",
            r#"{ "launch": { "kernel": "inc", "grid": "1", "block": "4", "args": ["@b+16"] } } ] }"#,
            &["step 2 (launch)", "offset 16 is not inside `b` (16 bytes)"],
        ),
        (
            "offset-text",
            r#"{ "launch": { "kernel": "inc", "grid": "1", "block": "4", "args": ["@b+x"] } } ] }"#,
            &["`@b+x`: the offset after `+` must be a byte count"],
        ),
        (
            "key",
            r#"{ "launch": { "kernel": "inc", "grd": "1", "block": "4", "args": ["@b"] } } ] }"#,
            &["step 2 (launch): unknown key `grd`"],
        ),
        (
            "args",
            r#"{ "launch": { "kernel": "countdown", "grid": "1", "block": "1", "args": ["@b"] } } ] }"#,
            &["step 2 (launch)", "takes 2 parameter(s) but 1"],
        ),
        (
            "buffer",
            r#"{ "repeat": { "times": 2, "steps": [ { "launch": { "kernel": "inc", "grid": "1", "block": "4", "args": ["@nope"] } } ] } } ] }"#,
            &["step 2.0 (launch)", "`nope`"],
        ),
        (
            "kernel",
            r#"{ "launch": { "kernel": "missing", "grid": "1", "block": "4" } } ] }"#,
            &["step 2 (launch)", "no kernel named `missing`"],
        ),
        (
            "write",
            r#"{ "write": "f=u32[1]:[1]" } ] }"#,
            &["step 2 (write)", "`f` is 1 bytes"],
        ),
        (
            "var",
            r#"{ "set": "c_k=f32[9]:zero" } ] }"#,
            &["step 2 (set)", "32 bytes but 36 bytes"],
        ),
        (
            "max",
            r#"{ "repeat": { "while_nonzero": "f", "steps": [] } } ] }"#,
            &["step 2 (repeat)", "`max`"],
        ),
        (
            "step",
            r#"{ "launch_kernel": {} } ] }"#,
            &["step 2 (launch_kernel): unknown step"],
        ),
        (
            "shape",
            r#"{ "launch": { "kernel": "inc", "grid": "1", "block": "2048", "args": ["@b"] } } ] }"#,
            &["step 2 (launch)", "1024"],
        ),
        // A plan's keys are named as the plan spells them, not as the command-line flags.
        (
            "cluster",
            r#"{ "launch": { "kernel": "inc", "grid": "1", "block": "4", "cluster": "0", "args": ["@b"] } } ] }"#,
            &["step 2 (launch): `cluster`: dimensions must be at least 1"],
        ),
        (
            "grid",
            r#"{ "launch": { "kernel": "inc", "grid": "1,x", "block": "4", "args": ["@b"] } } ] }"#,
            &["step 2 (launch): `grid`: `x` is not a positive integer"],
        ),
    ];
    for (name, tail, want) in cases {
        refused(&d, &format!("{name}.json"), &format!("{head}{tail}"), want);
    }
    refused(
        &d,
        "top.json",
        r#"{ "version": 1, "module": "$PTX", "buffer": {}, "steps": [] }"#,
        &["unknown key `buffer`"],
    );
}

#[test]
fn plan_flags_of_single_launches_are_refused() {
    let d = scratch("flags");
    let p = write_plan(&d, "p.json", &plan_text(&d, 10));
    let o = ptxemu(&["run", "--plan", path(&p), "--kernel", "inc"]);
    assert_eq!(o.status.code(), Some(2));
    assert_stderr_has(&o, "--kernel");
    assert!(!d.join("acc.bin").exists());
}

#[test]
fn an_inline_buffer_lives_for_one_launch() {
    // inc adds 1 to each of 4 words; an inline buffer starts again from [1,1,1,1] at every
    // launch, so every round reports [2,2,2,2] (a named buffer would count up).
    let d = scratch("inline");
    let p = write_plan(
        &d,
        "p.json",
        r#"{ "version": 1, "module": "$PTX",
          "steps": [ { "repeat": { "times": 3, "steps": [
            { "launch": { "kernel": "inc", "grid": "1", "block": "4", "args": ["u32[4]:[1,1,1,1]"] } } ] } },
            { "launch": { "kernel": "oob", "grid": "1", "block": "1", "args": ["u32[4]:zero"] } } ] }"#,
    );
    let o = ptxemu(&["run", "--plan", path(&p), "--json"]);
    assert_exit(&o, 1);
    let j = json(&o);
    for r in 0..3 {
        assert_eq!(j["launches"][r]["round"], r as u64);
        assert_eq!(
            j["launches"][r]["buffers"][0]["values"],
            serde_json::json!([2, 2, 2, 2])
        );
        assert!(j["launches"][r]["buffers"][0].get("name").is_none());
    }
    // The fault names the inline buffer by its step and argument.
    let e = stderr(&o);
    assert!(e.contains("plan step 1, launch 3: out-of-bounds"), "{e}");
    assert!(e.contains("past the end of argument 0 of step 1"), "{e}");
}
