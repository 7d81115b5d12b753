//! `--timeout S` on `run` and `difftest` (issue 23), with `litmus --timeout`'s semantics: the
//! run stops without a result, stderr gives the counts so far, exit status 3; a value that is
//! not a finite number of seconds at least 0 is refused (exit 2). Also: the progress line is
//! not drawn when stderr is not a terminal, and the litmus budget message names the flag that
//! raises it (`--max-candidates`).

mod fixture_common;

use fixture_common::{assert_exit, assert_stderr_has, ptxemu, stderr};

use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    fixture_common::scratch("timeout", name)
}

/// A kernel `spin` that never ends (`$L: bra $L;`) and writes its argument first.
fn spin(dir: &std::path::Path) -> String {
    let p = dir.join("spin.ptx");
    std::fs::write(
        &p,
        ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry spin(.param .u64 out)\n{\n    .reg .b64 %rd<2>;\n    .reg .b32 %r<2>;\n    ld.param.u64 %rd1, [out];\n    mov.b32 %r1, 7;\n    st.global.u32 [%rd1], %r1;\n$L:\n    bra $L;\n}\n",
    )
    .unwrap();
    p.display().to_string()
}

#[test]
fn run_timeout_stops_an_endless_kernel_with_the_counts_and_no_dump() {
    let d = scratch("run");
    let f = spin(&d);
    let dump = d.join("out.bin");
    let dump_arg = format!("0={}", dump.display());
    let t = std::time::Instant::now();
    let o = ptxemu(&[
        "run",
        &f,
        "--kernel",
        "spin",
        "--grid",
        "3",
        "--block",
        "32",
        "--arg",
        "u32[1]:zero",
        "--dump",
        &dump_arg,
        "--timeout",
        "0.5",
    ]);
    assert_exit(&o, 3);
    assert!(t.elapsed().as_secs_f64() < 30.0);
    let e = stderr(&o);
    assert!(
        e.contains("stopped by --timeout 0.5 after 0 of 3 CTA(s) done and ")
            && e.contains("warp instructions executed")
            && e.contains("no result"),
        "{e}"
    );
    assert!(!dump.exists(), "a stopped launch dumps nothing");
    // With --json: one object, marked stopped, with no buffers.
    let o = ptxemu(&[
        "run",
        &f,
        "--kernel",
        "spin",
        "--arg",
        "u32[1]:zero",
        "--json",
        "--timeout",
        "0.5",
    ]);
    assert_exit(&o, 3);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["stopped_by_timeout"], true);
    assert_eq!(v["buffers"], serde_json::json!([]));
    assert!(v["faults"][0]["message"]
        .as_str()
        .unwrap()
        .contains("stopped by --timeout 0.5"));
}

#[test]
fn run_timeout_refuses_what_is_not_a_duration() {
    let d = scratch("bad");
    let f = spin(&d);
    for bad in ["-1", "NaN", "inf", "1e300", "soon"] {
        let t = format!("--timeout={bad}");
        let o = ptxemu(&["run", &f, "--kernel", "spin", "--arg", "u32[1]:zero", &t]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert_stderr_has(&o, "--timeout");
    }
}

#[test]
fn sass_timeout_stops_an_endless_program_with_exit_3_and_no_dump() {
    let d = scratch("sass");
    let f = d.join("spin.sass");
    std::fs::write(
        &f,
        "MOV32I R1, 0x7;\nMOV R2, c[0x0][0x140];\nMOV R3, c[0x0][0x144];\nST.E [R2], R1;\nL: BRA L;\n",
    )
    .unwrap();
    let f = f.display().to_string();
    let dump = d.join("out.bin");
    let dump_arg = format!("0={}", dump.display());
    let t = std::time::Instant::now();
    let o = ptxemu(&[
        "run",
        &f,
        "--isa",
        "sass",
        "--block",
        "32",
        "--arg",
        "u32[1]:zero",
        "--dump",
        &dump_arg,
        "--max-steps",
        "100000000000",
        "--timeout",
        "0.5",
    ]);
    assert_exit(&o, 3);
    assert!(t.elapsed().as_secs_f64() < 30.0);
    let e = stderr(&o);
    assert!(
        e.contains("stopped by --timeout 0.5s") && e.contains("no result"),
        "{e}"
    );
    assert!(!dump.exists(), "a stopped launch dumps nothing");
    // The same validator as PTX runs.
    let o = ptxemu(&["run", &f, "--isa", "sass", "--timeout", "-1"]);
    assert_exit(&o, 2);
}

#[test]
fn plan_timeout_stops_the_whole_plan_with_exit_3() {
    let d = scratch("plan");
    let k = spin(&d);
    // Many short launches: the plan, not one launch, runs out of time.
    let quick = d.join("quick.ptx");
    std::fs::write(
        &quick,
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry quick()\n{\n    ret;\n}\n",
    )
    .unwrap();
    let plan = d.join("plan.json");
    let dump = d.join("never.bin");
    std::fs::write(
        &plan,
        format!(
            r#"{{"version": 1, "module": "{}", "buffers": {{"out": "u32[1]:zero"}}, "steps": [
                {{"launch": {{"kernel": "spin", "grid": 2, "block": 32, "args": ["@out"]}}}},
                {{"dump": "out={}"}}]}}"#,
            k,
            dump.display()
        ),
    )
    .unwrap();
    let p = plan.display().to_string();
    // A plan writes only below the folder ptxemu runs in: it runs in its own folder.
    let in_d = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_ptxemu"))
            .args(args)
            .current_dir(&d)
            .output()
            .expect("ptxemu runs")
    };
    let t = std::time::Instant::now();
    let o = in_d(&["run", "--plan", &p, "--timeout", "0.5"]);
    assert_exit(&o, 3);
    assert!(t.elapsed().as_secs_f64() < 30.0);
    let e = stderr(&o);
    assert!(
        e.contains(
            "plan stopped by --timeout 0.5s at step 0, launch 0 (0 launch(es) done); no result"
        ),
        "{e}"
    );
    assert!(!dump.exists(), "the steps after the stop do not run");
    let o = in_d(&["run", "--plan", &p, "--timeout", "0.5", "--json"]);
    assert_exit(&o, 3);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "timeout");
    // A repeat of quick launches is stopped between launches.
    std::fs::write(
        &plan,
        format!(
            r#"{{"version": 1, "module": "{}", "steps": [{{"repeat": {{"times": 100000000, "steps": [
                {{"launch": {{"kernel": "quick", "grid": 1, "block": 1, "args": []}}}}]}}}}]}}"#,
            quick.display()
        ),
    )
    .unwrap();
    let o = in_d(&["run", "--plan", &p, "--timeout", "0.5"]);
    assert_exit(&o, 3);
    // The repeat checks the time every round, so the stop names the repeat (step 0) or the
    // launch inside it (step 0.0), with the round.
    assert_stderr_has(&o, "plan stopped by --timeout 0.5s at step 0");
    assert_stderr_has(&o, ", round ");
}

#[test]
fn a_run_that_finishes_within_its_timeout_is_unchanged_and_draws_no_progress_off_a_terminal() {
    // 2.5 s of trivial CTAs: past the progress line's delay, but stderr is a pipe here, so no
    // line may appear on it; the launch is then stopped with the counts.
    let d = scratch("triv");
    let p = d.join("triv.ptx");
    std::fs::write(
        &p,
        ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry triv()\n{\n    ret;\n}\n",
    )
    .unwrap();
    let f = p.display().to_string();
    let o = ptxemu(&[
        "run",
        &f,
        "--kernel",
        "triv",
        "--grid",
        "4",
        "--timeout",
        "60",
    ]);
    assert_exit(&o, 0);
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
    let o = ptxemu(&[
        "run",
        &f,
        "--kernel",
        "triv",
        "--grid",
        "65535,65535",
        "--timeout",
        "2.5",
    ]);
    assert_exit(&o, 3);
    let e = stderr(&o);
    assert!(
        !e.contains("CTAs/s"),
        "no progress line off a terminal: {e}"
    );
    assert!(e.contains("of 4294836225 CTA(s) done"), "{e}");
}

#[test]
fn difftest_timeout_stops_without_a_verdict() {
    let d = scratch("difftest");
    let out = d.join("dt");
    let o = ptxemu(&[
        "difftest",
        "--emu-only",
        "--count",
        "1000000",
        "--per-module",
        "5",
        "--timeout",
        "0.05",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_exit(&o, 3);
    let e = stderr(&o);
    assert!(
        e.contains("stopped by --timeout 0.05 after ")
            && e.contains(" of 1000000 kernel(s) compared")
            && e.contains("no verdict"),
        "{e}"
    );
    assert!(
        !out.join("summary.json").exists(),
        "no summary for a stopped run"
    );
    let o = ptxemu(&[
        "difftest",
        "--emu-only",
        "--timeout=-0.5",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_exit(&o, 2);
}

/// Three threads in different CTAs each write x twice and read it twice (7,134 executions).
fn family3(dir: &std::path::Path) -> String {
    let p = dir.join("family3.litmus");
    std::fs::write(
        &p,
        "PTX family3\n\"issue 21\"\n{\n x=0;\n}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 ;\n st.relaxed.gpu x, 1 | st.relaxed.gpu x, 3 | st.relaxed.gpu x, 5 ;\n ld.relaxed.gpu r0, x | ld.relaxed.gpu r0, x | ld.relaxed.gpu r0, x ;\n st.relaxed.gpu x, 2 | st.relaxed.gpu x, 4 | st.relaxed.gpu x, 6 ;\n ld.relaxed.gpu r1, x | ld.relaxed.gpu r1, x | ld.relaxed.gpu r1, x ;\nexists (x == 1)\n",
    )
    .unwrap();
    p.display().to_string()
}

#[test]
fn the_litmus_budget_message_names_the_flag_that_raises_it() {
    let d = scratch("budget");
    let f = family3(&d);
    let o = ptxemu(&["litmus", "--max-candidates", "100", &f]);
    assert_exit(&o, 3);
    assert_stderr_has(
        &o,
        "the budget of 100 partial executions (--max-candidates raises it)",
    );
    // The flag does raise it: the same test runs to its verdict with a larger budget.
    let o = ptxemu(&["litmus", "--max-candidates", "10000000", &f]);
    assert_exit(&o, 0);
    assert!(String::from_utf8_lossy(&o.stdout).contains("Candidates"));
    // The enumeration's budget (explain) names it too.
    let o = ptxemu(&["explain", "--max-candidates", "10", &f]);
    assert_ne!(o.status.code(), Some(0));
    assert_stderr_has(&o, "--max-candidates");
    let o = ptxemu(&["litmus", "--max-candidates", "0", &f]);
    assert_eq!(o.status.code(), Some(2));
}
