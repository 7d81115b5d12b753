//! Small frictions a newcomer met (issue 19, item 5), each checked end to end: `compare` as
//! the README shows it, `explain --outcome` naming what the test lacks, a closed output pipe,
//! `--json` on refusals, flags of the other instruction set, the README's set-up and its
//! hardware counts, and articles before type names.

mod fixture_common;

use fixture_common::{ptxemu_in_workspace as ptxemu, stderr, stdout, workspace as root};

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    fixture_common::scratch("friction", name)
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    v
}

const VARS: &str = "tools/tests/data/plan/vars.ptx";

/// The single JSON object a `--json` run printed.
fn one_json(o: &Output) -> Value {
    let text = stdout(o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "one JSON line: {text}\n{}", stderr(o));
    serde_json::from_str(lines[0]).expect("JSON")
}

// ---- compare --------------------------------------------------------------------------

#[test]
fn compare_as_the_readme_shows_it() {
    // The README's flow: `harness --out hw …` writes each test beside its program, the GPU
    // run writes NAME.log beside it, and `compare hw/*.log` needs no --tests. The recorded
    // H100 logs stand in for the GPU run.
    let hw = scratch("hw");
    let o = ptxemu(&[
        "harness",
        "--out",
        hw.to_str().unwrap(),
        "litmus/tests/library",
    ]);
    // Two multi-GPU tests are refused (exit 2); the other harnesses are written.
    assert!(hw.join("MP+rlx.litmus").is_file(), "{}", stderr(&o));
    let recorded = files(&root().join("litmus/hardware/nvidia-h100/library"), "log");
    for log in &recorded {
        std::fs::copy(log, hw.join(log.file_name().unwrap())).unwrap();
    }
    let logs: Vec<String> = files(&hw, "log")
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let mut args = vec!["compare", "-q"];
    args.extend(logs.iter().map(String::as_str));
    let o = ptxemu(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(&format!("{} test(s) compared", recorded.len())),
        "{}",
        stdout(&o)
    );

    // The guide's commands for the recorded results, run exactly as written there.
    let guide = std::fs::read_to_string(root().join("docs/hardware.md")).unwrap();
    let commands: Vec<&str> = guide
        .lines()
        .filter(|l| l.starts_with("ptxemu compare --tests "))
        .collect();
    assert_eq!(
        commands.len(),
        2,
        "docs/hardware.md shows both recorded comparisons"
    );
    for c in commands {
        let words: Vec<&str> = c.split_whitespace().collect();
        let glob = words.last().unwrap();
        let (dir, pattern) = glob.rsplit_once('/').unwrap();
        let ext = pattern.strip_prefix("*.").unwrap();
        let logs: Vec<String> = files(&root().join(dir), ext)
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        assert!(!logs.is_empty(), "{c}");
        let mut args: Vec<&str> = words[1..words.len() - 1].to_vec();
        args.push("-q");
        args.extend(logs.iter().map(String::as_str));
        let o = ptxemu(&args);
        assert_eq!(o.status.code(), Some(0), "{c}: {}", stderr(&o));
        assert!(
            stdout(&o).contains(&format!(
                "{} test(s) compared with ptx-v7.5: 0 with forbidden",
                logs.len()
            )),
            "{c}: {}",
            stdout(&o)
        );
    }
}

#[test]
fn compare_without_tests_is_an_error_that_says_what_to_give() {
    let log = "litmus/hardware/nvidia-h100/library/MP+rlx.log";
    let o = ptxemu(&["compare", log]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let e = stderr(&o);
    assert!(e.contains("test `MP+rlx` not found"), "{e}");
    assert!(
        e.contains("no --tests folder was given: name the folder of the litmus files"),
        "{e}"
    );
    assert!(
        stdout(&o).contains("1 could not be compared"),
        "{}",
        stdout(&o)
    );
}

// ---- explain --outcome ----------------------------------------------------------------

#[test]
fn explain_refuses_an_outcome_naming_what_the_test_lacks() {
    let test = "litmus/tests/library/MP+rlx.litmus";
    let cases = [
        (
            "P1:r9=1",
            "thread P1 has no register `r9` (its registers: r0, r1)",
        ),
        ("P1:r0=1 /\\ P0:r0=0", "thread P0 has no register `r0`"),
        ("P7:r0=1", "the test has 2 thread(s)"),
        ("z=1", "no location `z` (locations: x, y)"),
    ];
    for (outcome, want) in cases {
        let o = ptxemu(&["explain", test, "--outcome", outcome]);
        assert_eq!(o.status.code(), Some(2), "{outcome}: {}", stdout(&o));
        assert!(stderr(&o).contains(want), "{outcome}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "no verdict for {outcome}");
    }
    let o = ptxemu(&["explain", test, "--outcome", "P1:r0=1 /\\ x=1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("ALLOWED"), "{}", stdout(&o));
}

// ---- a closed pipe --------------------------------------------------------------------

/// Runs ptxemu, reads `keep` bytes of its output and closes the pipe; returns its exit
/// status and standard error.
fn closed_early(args: &[&str], keep: usize) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptxemu"))
        .current_dir(root())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut buf = vec![0u8; keep];
    out.read_exact(&mut buf).unwrap();
    drop(out);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (child.wait().unwrap().code(), err)
}

#[test]
fn a_closed_pipe_ends_quietly() {
    // Two buffers of 4096 f64 values print about 140 KB of JSON: more than a pipe holds, so
    // the writer meets the closed pipe whatever the timing.
    let big = "f64[4096]:fill=0.12345678901234";
    let (code, err) = closed_early(
        &[
            "run",
            VARS,
            "--kernel",
            "countdown",
            "--arg",
            big,
            "--arg",
            big,
            "--json",
        ],
        100,
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.is_empty(), "nothing on stderr: {err}");
    assert_eq!(code, Some(0), "the run itself succeeded");
    // Other subcommands: litmus prints a line per test as it goes.
    let (code, err) = closed_early(&["litmus", "litmus/tests/library"], 10);
    assert!(!err.contains("panicked"), "{err}");
    assert!(code.is_some(), "exited, not killed by a signal");
    let (_, err) = closed_early(&["examples"], 10);
    assert!(!err.contains("panicked"), "{err}");
}

// ---- --json on refusals and faults ----------------------------------------------------

#[test]
fn json_reports_refused_launches_and_faults_as_one_object() {
    let cases: [(&[&str], &str, &str); 5] = [
        (
            &["--kernel", "missing"],
            "no_kernel",
            "no kernel named `missing`",
        ),
        (
            &["--kernel", "inc", "--arg", "u32:1"],
            "arguments",
            "a u32 is 4 byte(s) but parameter 0",
        ),
        (
            &["--kernel", "inc", "--arg", "u32[4]:zero", "--block", "2048"],
            "launch_limits",
            "1024",
        ),
        (
            &[
                "--kernel",
                "inc",
                "--arg",
                "u32[4]:zero",
                "--shared-bytes",
                "300000",
            ],
            "launch_limits",
            "shared memory",
        ),
        (
            &["--kernel", "inc", "--arg", "u32[4]:bad"],
            "arguments",
            "u32[4]:bad",
        ),
    ];
    for (args, kind, want) in cases {
        let mut all = vec!["run", VARS, "--json"];
        all.extend(args);
        let o = ptxemu(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let j = one_json(&o);
        assert_eq!(j["error"]["kind"], kind, "{args:?}: {j}");
        let m = j["error"]["message"].as_str().unwrap();
        assert!(m.contains(want), "{args:?}: {m}");
        assert!(stderr(&o).contains(want), "and on stderr: {}", stderr(&o));
    }
    // A parse error: the rendered diagnostic on stderr, one JSON object on stdout.
    let bad = scratch("parse").join("bad.ptx");
    std::fs::write(
        &bad,
        ".version 8.0\n.target sm_90\n.address_size 64\nnonsense\n",
    )
    .unwrap();
    let o = ptxemu(&["run", bad.to_str().unwrap(), "--kernel", "k", "--json"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(one_json(&o)["error"]["kind"], "parse");
    assert!(stderr(&o).contains("bad.ptx:4:"), "{}", stderr(&o));
    // A fault: exit 1 and one object with the fault.
    let o = ptxemu(&[
        "run",
        VARS,
        "--kernel",
        "oob",
        "--arg",
        "u32[4]:zero",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let j = one_json(&o);
    assert_eq!(j["faults"][0]["kernel"], "oob");
    assert!(j["faults"][0]["message"]
        .as_str()
        .unwrap()
        .contains("out-of-bounds"));
}

// ---- flags of the other instruction set -----------------------------------------------

#[test]
fn flags_of_the_other_isa_are_refused() {
    let sass_only: [&[&str]; 6] = [
        &["--strict"],
        &["--strict-align"],
        &["--check-uniform"],
        &["--shared-window", "0x1000000:0x100"],
        &["--local-window", "0x2000000:0x100"],
        &["--registers", "64"],
    ];
    for flag in sass_only {
        let mut args = vec!["run", VARS, "--kernel", "inc", "--arg", "u32[4]:zero"];
        args.extend(flag);
        let o = ptxemu(&args);
        assert_eq!(o.status.code(), Some(2), "{flag:?}");
        assert!(
            stderr(&o).contains(flag[0]) && stderr(&o).contains("--isa sass"),
            "{flag:?}: {}",
            stderr(&o)
        );
    }
    let ptx_only: [&[&str]; 7] = [
        &["--kernel", "k"],
        &["--check-nc"],
        &["--cache-model", "l1"],
        &["--set", "x=u32:1"],
        &["--dump-var", "x=/dev/null"],
        &["--shared-bytes", "16"],
        &["--trace-tmem"],
    ];
    for flag in ptx_only {
        let mut args = vec![
            "run",
            "--isa",
            "sass",
            "tests/fixtures/sass/scale.sass",
            "--grid",
            "2",
            "--block",
            "32",
            "--arg",
            "u32[50]:fill=3",
            "--arg",
            "u32[50]:zero",
            "--arg",
            "u32:50",
        ];
        args.extend(flag);
        let o = ptxemu(&args);
        assert_eq!(o.status.code(), Some(2), "{flag:?}");
        assert!(
            stderr(&o).contains(flag[0]) && stderr(&o).contains("PTX"),
            "{flag:?}: {}",
            stderr(&o)
        );
    }
    // Without them, the same SASS run is fine.
    let o = ptxemu(&[
        "run",
        "--isa",
        "sass",
        "tests/fixtures/sass/scale.sass",
        "--grid",
        "2",
        "--block",
        "32",
        "--arg",
        "u32[50]:fill=3",
        "--arg",
        "u32[50]:zero",
        "--arg",
        "u32:50",
        "--strict",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

// ---- README ---------------------------------------------------------------------------

#[test]
fn readme_set_up_and_install_line() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let setup = readme
        .split("## Set-up")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap();
    let block = setup.split("```").nth(1).unwrap();
    let commands: Vec<&str> = block
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .collect();
    assert_eq!(
        commands,
        [
            "cargo run --release -p ptxemu -- examples",
            "cargo test --workspace --release"
        ]
    );
    // Installing follows Cargo.lock, the versions the tests ran with.
    let install = readme
        .split("## Install")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap();
    assert!(
        install.contains("cargo install --locked --path tools"),
        "the install line: {install}"
    );
    // The package the install line names is the ptxemu program.
    let manifest = std::fs::read_to_string(root().join("tools/Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"ptxemu\""));
    let guide = std::fs::read_to_string(root().join("docs/running-kernels.md")).unwrap();
    for w in [
        "--set NAME=SPEC",
        "--dump-var NAME=PATH",
        "--plan PLAN.json",
    ] {
        assert!(guide.contains(w), "docs/running-kernels.md documents {w}");
    }
    assert!(guide.contains("(plan-format.md)"));
    assert!(root().join("docs/plan-format.md").is_file());
}

#[test]
fn hardware_readme_counts_match_the_committed_data() {
    let hw = root().join("litmus/hardware/nvidia-h100");
    let text = std::fs::read_to_string(hw.join("README.md")).unwrap();
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let library_logs = files(&hw.join("library"), "log").len();
    let library_tests = files(&root().join("litmus/tests/library"), "litmus").len();
    let corpus_logs = files(&hw.join("corpus"), "log").len();
    let mut corpus_tests = 0;
    let mut stack = vec![root().join("litmus/corpus/dat3m-ptx")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "litmus") {
                corpus_tests += 1;
            }
        }
    }
    let want = [
        format!("{library_logs} of the {library_tests} tests of `litmus/tests/library`"),
        format!("{corpus_logs} of its {corpus_tests}"),
        format!("the other {} are refused", corpus_tests - corpus_logs),
        format!("({library_logs} + {corpus_logs} tests"),
    ];
    for w in want {
        assert!(flat.contains(&w), "`{w}` in the hardware README");
    }
    // The library tests without a recording are the ones the README names.
    let missing: Vec<String> = files(&root().join("litmus/tests/library"), "litmus")
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|n| !hw.join("library").join(format!("{n}.log")).exists())
        .collect();
    assert_eq!(missing.len(), library_tests - library_logs);
    for n in missing {
        assert!(flat.contains(&format!("`{n}`")), "the README names {n}");
    }
}

// ---- articles -------------------------------------------------------------------------

#[test]
fn an_s32_value() {
    let o = ptxemu(&["run", VARS, "--kernel", "add_acc", "--arg", "s32:x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is not an s32 value"), "{}", stderr(&o));
    let o = ptxemu(&["run", VARS, "--kernel", "add_acc", "--arg", "f32:x"]);
    assert!(stderr(&o).contains("is not an f32 value"), "{}", stderr(&o));
    let o = ptxemu(&["run", VARS, "--kernel", "add_acc", "--arg", "u32:x"]);
    assert!(stderr(&o).contains("is not a u32 value"), "{}", stderr(&o));
    let o = ptxemu(&["run", VARS, "--kernel", "add_acc", "--arg", "s64:1"]);
    assert!(
        stderr(&o).contains("an s64 is 8 byte(s) but parameter 0 of `add_acc` takes 4"),
        "{}",
        stderr(&o)
    );
    // The validator's messages about register and operand types.
    let ptx = scratch("article").join("a.ptx");
    std::fs::write(
        &ptx,
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\
         .reg .f32 %f1;\n.reg .b32 %r1;\n.reg .s16 %h1;\n.reg .u16 %u1;\n\
         add.s32 %r1, %f1, 1;\nst.global.u32 [0], %h1;\nst.global.u32 [0], %u1;\n\
         add.f32 %f1, %f1, 1;\nret;\n}\n",
    )
    .unwrap();
    let o = ptxemu(&["check", ptx.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    for w in [
        "`%f1`, an .f32 register; it takes a 32-bit register",
        "an .s16 register cannot hold",
        "a .u16 register cannot hold",
        "an .f32 operand is written as a float",
    ] {
        assert!(e.contains(w), "`{w}` in {e}");
    }
}
