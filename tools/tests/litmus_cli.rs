//! The `ptxemu litmus` command-line contract: herd7 text, JSON lines, expectation CSVs,
//! liveness, models, recursion into folders, and errors with file:line:col.

mod fixture_common;

use fixture_common::{ptxemu_in_workspace as ptxemu, stdout as text};

use std::path::PathBuf;

fn scratch(name: &str, body: &str) -> PathBuf {
    fixture_common::scratch_file("litmus-cli", name, body)
}

#[test]
fn herd_text_output() {
    let o = ptxemu(&["litmus", "litmus/tests/library/MP+rel+acq-gpu.litmus"]);
    assert!(o.status.success());
    let t = text(&o);
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines[0], "Test MP+rel+acq-gpu Allowed");
    assert_eq!(lines[1], "States 3");
    assert!(
        t.contains("\nNo\nWitnesses\nPositive: 0 Negative: 3\n"),
        "{t}"
    );
    assert!(
        t.contains("Condition exists (P1:r0 == 1 /\\ P1:r1 == 0) is NOT validated"),
        "{t}"
    );
    assert!(t.contains("Observation MP+rel+acq-gpu Never 0 3"), "{t}");
    assert!(t.lines().any(|l| l.starts_with("Time MP+rel+acq-gpu ")));
}

#[test]
fn json_lines_and_recursion() {
    let o = ptxemu(&["litmus", "--json", "--jobs", "2", "litmus/tests"]);
    assert!(o.status.success());
    let t = text(&o);
    let objs: Vec<serde_json::Value> = t
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(objs.len() >= 37, "every test under the folder, recursively");
    let mp = objs.iter().find(|o| o["test"] == "MP+weak").unwrap();
    for key in [
        "test",
        "file",
        "model",
        "quantifier",
        "holds",
        "observation",
        "positive",
        "negative",
        "states",
        "candidates",
        "allowed",
        "time_s",
    ] {
        assert!(mp.get(key).is_some(), "missing {key}");
    }
    assert_eq!(mp["model"], "ptx-v7.5");
    assert_eq!(mp["quantifier"], "exists");
    assert_eq!(mp["holds"], true);
    assert_eq!(mp["observation"], "Sometimes");
    assert!(mp["file"].as_str().unwrap().ends_with("MP+weak.litmus"));
    let states = mp["states"].as_array().unwrap();
    assert_eq!(states.len(), 4);
    assert!(states.iter().any(|s| s["P1:r0"] == 1 && s["P1:r1"] == 0));
}

#[test]
fn models_differ() {
    let o = ptxemu(&[
        "litmus",
        "--json",
        "--model",
        "sc",
        "litmus/tests/library/SB+rlx.litmus",
    ]);
    let v: serde_json::Value = serde_json::from_str(text(&o).trim()).unwrap();
    assert_eq!(v["model"], "sc");
    assert_eq!(v["holds"], false, "SC forbids store buffering");
    let o = ptxemu(&[
        "litmus",
        "--model",
        "ptx-v9",
        "litmus/tests/library/SB+rlx.litmus",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn expectations_csv() {
    let o = ptxemu(&[
        "litmus",
        "--expect",
        "litmus/tests/library/expected.csv",
        "litmus/tests/library",
    ]);
    assert!(o.status.success());
    assert!(
        text(&o).trim_end().ends_with("41 passed, 0 failed"),
        "{}",
        text(&o)
    );
    // A wrong expectation and a missing file both fail.
    let csv = scratch("wrong.csv", "// comment\nlitmus/tests/library/SB+rlx.litmus,0\nlitmus/tests/library/MP+weak.litmus,1\nlitmus/tests/library/Nope.litmus,1\n");
    let o = ptxemu(&[
        "litmus",
        "--expect",
        csv.to_str().unwrap(),
        "litmus/tests/library",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let t = text(&o);
    assert!(
        t.contains("FAILED litmus/tests/library/SB+rlx.litmus: expected 0, got 1"),
        "{t}"
    );
    assert!(t.contains("Nope.litmus"), "{t}");
    assert!(t.trim_end().ends_with("1 passed, 2 failed"), "{t}");
}

#[test]
fn liveness_finds_barrier_deadlocks_and_unfair_spins() {
    let dead = scratch(
        "dead.litmus",
        "PTX dead\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n bar.cta.sync 0 | ld.weak r0, x ;\n | bne r0, 1, LC01 ;\n | bar.cta.sync 0 ;\n | LC01: ;\nexists (0 == 0)\n",
    );
    let o = ptxemu(&["litmus", "--liveness", "--json", dead.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(text(&o).trim()).unwrap();
    assert_eq!(
        v["holds"], false,
        "when P1 skips its barrier, P0 waits forever"
    );
    assert_eq!(v["liveness"]["hangs"], true);
    let spin = scratch(
        "spin.litmus",
        "PTX spin\n{ f=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n LC00: | st.relaxed.gpu f, 1 ;\n ld.relaxed.gpu r0, f | ;\n beq r0, 0, LC00 | ;\nexists (0 == 0)\n",
    );
    let o = ptxemu(&["litmus", "--liveness", "--json", spin.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(text(&o).trim()).unwrap();
    assert_eq!(
        v["holds"], true,
        "the spin must eventually see f = 1 (fairness)"
    );
}

#[test]
fn errors_name_file_line_and_column() {
    let bad = scratch(
        "bad.litmus",
        "PTX bad\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.sometimes x, 1 ;\nexists (x == 1)\n",
    );
    let o = ptxemu(&["litmus", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.litmus:4:2:"), "{err}");
    let o = ptxemu(&["litmus", "no/such/file.litmus"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn print_dialect_writes_gpu_ptx_back_in_the_dialect() {
    let o = ptxemu(&[
        "litmus",
        "--print-dialect",
        "litmus/tests/gpu_ptx/herd-mp+membar.gls.litmus",
    ]);
    assert!(o.status.success());
    let t = text(&o);
    assert!(t.starts_with("PTX MP+membar.gls\n"), "{t}");
    assert!(
        t.contains("P0@cta 0,gpu 0,warp 0") && t.contains("P1@cta 1,gpu 0,warp 0"),
        "{t}"
    );
    assert!(
        t.contains("st.global.cg.s32 [x],r0") && t.contains("membar.gl"),
        "{t}"
    );
    // The printed test runs to the verdict of the original.
    let p = scratch("printed.litmus", &t);
    let a = text(&ptxemu(&["litmus", p.to_str().unwrap()]));
    let b = text(&ptxemu(&[
        "litmus",
        "litmus/tests/gpu_ptx/herd-mp+membar.gls.litmus",
    ]));
    let obs = |s: &str| {
        s.lines()
            .find(|l| l.starts_with("Observation"))
            .map(str::to_string)
    };
    assert_eq!(obs(&a), obs(&b));
    assert!(obs(&a).is_some_and(|l| l.contains("Never")));
    let bad = scratch(
        "bad.litmus",
        "GPU_PTX B\n{}\n P0 ;\n fence.bogus.gpu ;\nscopeTree (device (cta P0))\nexists (0:r0=0)\n",
    );
    let o = ptxemu(&["litmus", "--print-dialect", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("bad.litmus:4:2: unknown fence `fence.bogus.gpu`"),
        "{e}"
    );
}

#[test]
fn print_dialect_reports_unknown_ptx_spellings_with_their_line() {
    let bad = scratch(
        "bad-ptx.litmus",
        "PTX B\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\n ld.bogus.u32 %r1, [x] ;\nexists (P0:r0 == 0)\n",
    );
    let o = ptxemu(&["litmus", "--print-dialect", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        o.stdout.is_empty(),
        "nothing printed for an unreadable test"
    );
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("line 5") && e.contains("ld.bogus.u32"), "{e}");
}

#[test]
fn a_condition_on_a_register_nothing_writes_is_a_warning_and_with_strict_an_error() {
    // P1 loads into r0 and r1; the condition reads r2 (a slip for r1), which stays 0.
    let body = "PTX MP+slip\n{\n x=0; y=0;\n}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n \
                st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, y ;\n \
                st.relaxed.gpu y, 1 | ld.relaxed.gpu r1, x ;\n\
                exists (P1:r0 == 1 /\\ P1:r2 == 0)\n";
    let f = scratch("slip.litmus", body);
    let path = f.to_str().unwrap();
    let want = format!(
        "ptxemu litmus: warning: {path}:8: the condition reads P1:r2, but no instruction of P1 \
         writes r2: it is always 0"
    );

    let o = ptxemu(&["litmus", path]);
    assert_eq!(o.status.code(), Some(0), "a warning does not fail the run");
    let err = fixture_common::stderr(&o);
    assert!(err.contains(&want), "{err}");
    assert!(text(&o).starts_with("Test MP+slip"), "the test still runs");

    let o = ptxemu(&["litmus", "--json", path]);
    let v: serde_json::Value = serde_json::from_str(text(&o).trim()).unwrap();
    let w = v["warnings"][0].as_str().unwrap();
    assert!(
        w.contains("P1:r2") && w.starts_with(&format!("{path}:8:")),
        "{v}"
    );

    let o = ptxemu(&["litmus", "--strict", path]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "with --strict the warning is an error"
    );
    let err = fixture_common::stderr(&o);
    assert!(err.contains("an error with --strict"), "{err}");
    assert!(text(&o).is_empty(), "the test was not run: {}", text(&o));

    // A test whose registers are all written gets no warning, with or without --strict.
    let o = ptxemu(&["litmus", "--strict", "litmus/tests/library"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(!fixture_common::stderr(&o).contains("warning"));
}
