//! Hostile input, second pass (issue 38): nothing written outside what the user named, no
//! silent wrong answer, no raw control bytes on the terminal. Each test failed on the code
//! before its fix (run once with `PTXEMU_UNDER_TEST` set to that build).

mod hostile_common;

use hostile_common::{clean, refused, run_in, scratch, write, STORE7};

use std::path::Path;

const SUITE: &str = "hostile-answers";

/// A plan over `k.ptx` with one buffer, a launch, then `steps` (JSON text).
fn plan(steps: &str) -> String {
    format!(
        r#"{{"version": 1, "module": "k.ptx", "buffers": {{"b": "u32[4]:zero"}},
            "steps": [{{"launch": {{"kernel": "k", "grid": 1, "block": 1, "args": ["@b"]}}}}, {steps}]}}"#
    )
}

#[test]
fn a_plan_writes_and_reads_only_inside_its_folder() {
    let top = scratch(SUITE, "paths");
    let d = top.join("plan");
    write(&d, "k.ptx", STORE7);
    write(&top, "secret.bin", "0123456789abcdef");
    let outside =
        std::env::temp_dir().join(format!("ptxemu-hostile-abs-{}.bin", std::process::id()));
    let _ = std::fs::remove_file(&outside);
    let abs = outside.to_str().unwrap();
    for (step, shown) in [
        (
            r#"{"dump": "b=../escaped.bin"}"#.to_string(),
            "../escaped.bin",
        ),
        (format!(r#"{{"dump": "b={abs}"}}"#), abs),
        (
            r#"{"dump": "b=sub/../../escaped.bin"}"#.to_string(),
            "sub/../../escaped.bin",
        ),
    ] {
        write(&d, "p.json", &plan(&step));
        let r = run_in(&d, &["run", "--plan", "p.json"], None, 60);
        refused(&r, "would be written outside the current folder");
        assert!(r.out.contains(shown), "{}", r.all());
    }
    let v = r#"{"version": 1, "module": "v.ptx", "steps": [{"dump_var": "g=../escaped.bin"}]}"#;
    write(
        &d,
        "v.ptx",
        ".version 8.0\n.target sm_90\n.address_size 64\n.global .u32 g;\n.visible .entry k()\n{\nret;\n}\n",
    );
    write(&d, "v.json", v);
    refused(
        &run_in(&d, &["run", "--plan", "v.json"], None, 60),
        "would be written outside the current folder",
    );
    assert!(!top.join("escaped.bin").exists() && !outside.exists());
    // Reads too: the module and `file=` inputs.
    write(
        &d,
        "m.json",
        r#"{"version": 1, "module": "../k.ptx", "steps": []}"#,
    );
    refused(
        &run_in(&d, &["run", "--plan", "m.json"], None, 60),
        "outside the plan's folder",
    );
    write(
        &d,
        "f.json",
        r#"{"version": 1, "module": "k.ptx", "buffers": {"b": "u8[16]:file=../secret.bin"}, "steps": []}"#,
    );
    refused(
        &run_in(&d, &["run", "--plan", "f.json"], None, 60),
        "outside the plan's folder",
    );
    // A link inside the folder that points out of it is followed, and refused.
    std::os::unix::fs::symlink(top.join("secret.bin"), d.join("link.bin")).unwrap();
    write(
        &d,
        "l.json",
        r#"{"version": 1, "module": "k.ptx", "buffers": {"b": "u8[16]:file=link.bin"}, "steps": []}"#,
    );
    refused(
        &run_in(&d, &["run", "--plan", "l.json"], None, 60),
        "outside the plan's folder",
    );
    // The command line may widen the folder; paths inside it work as before.
    let r = run_in(
        &d,
        &[
            "run",
            "--plan",
            "f.json",
            "--plan-root",
            top.to_str().unwrap(),
        ],
        None,
        60,
    );
    assert_eq!(r.code, Some(0), "{}", r.all());
    write(&d, "ok.json", &plan(r#"{"dump": "b=out.bin"}"#));
    // Outputs are relative to the folder ptxemu runs in (docs/plan-format.md).
    let r = run_in(&top, &["run", "--plan", "plan/ok.json"], None, 60);
    assert_eq!(r.code, Some(0), "{}", r.all());
    assert_eq!(
        std::fs::read(top.join("out.bin")).unwrap()[..4],
        [7, 0, 0, 0]
    );
}

#[test]
fn a_plan_with_a_key_given_twice_is_refused() {
    let d = scratch(SUITE, "plan-dup");
    write(&d, "k.ptx", STORE7);
    // The second `steps` would silently replace the first, so the plan ran nothing.
    write(
        &d,
        "p.json",
        r#"{"version": 1, "module": "k.ptx", "buffers": {"b": "u32[4]:zero"},
            "steps": [{"launch": {"kernel": "k", "grid": 1, "block": 1, "args": ["@b"]}}],
            "steps": []}"#,
    );
    let r = run_in(&d, &["run", "--plan", "p.json"], None, 60);
    refused(&r, "duplicate key `steps`");
    assert!(r.out.contains("at line 3 column"), "{}", r.all());
}

/// The cluster fixture (`tests/fixtures/cluster`): its kernel `cluster_ids` writes each
/// thread's cluster special registers, and `ids_2x2/out.bin` is what an H100 wrote for a
/// 4x2x1 grid of 32-thread CTAs in clusters of 2x2x1.
fn cluster_fixture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/cluster")
}

#[test]
fn a_plan_launchs_cluster_is_used_and_checked_before_anything_runs() {
    let d = scratch(SUITE, "plan-cluster");
    let ptx = std::fs::read_to_string(cluster_fixture().join("cluster.sm90a.ptx")).unwrap();
    write(&d, "k.ptx", &ptx);
    let launch = |cluster: &str| {
        format!(
            r#"{{"version": 1, "module": "k.ptx", "buffers": {{"o": "u32[128]:zero"}},
                "steps": [{{"dump": "o=early.bin"}},
                          {{"launch": {{"kernel": "cluster_ids", "grid": "4,2,1", "block": 32,
                                        "cluster": "{cluster}", "args": ["@o"]}}}},
                          {{"dump": "o=out.bin"}}]}}"#
        )
    };
    // The key was dropped, so the kernel ran in clusters of one CTA.
    write(&d, "p.json", &launch("2,2,1"));
    let r = run_in(&d, &["run", "--plan", "p.json"], None, 60);
    assert_eq!(r.code, Some(0), "{}", r.all());
    let gpu = std::fs::read(cluster_fixture().join("ids_2x2/out.bin")).unwrap();
    assert!(
        std::fs::read(d.join("out.bin")).unwrap() == gpu,
        "not the GPU's cluster ids"
    );
    // A shape the launch cannot have is refused before the first step runs.
    for (cluster, why) in [
        ("3,1,1", "not a whole number of clusters"),
        ("0,1,1", "dimensions must be at least 1"),
    ] {
        std::fs::remove_file(d.join("early.bin")).ok();
        write(&d, "p.json", &launch(cluster));
        let r = run_in(&d, &["run", "--plan", "p.json"], None, 60);
        refused(&r, why);
        assert!(r.out.contains("step 1 (launch)"), "{}", r.all());
        assert!(
            !d.join("early.bin").exists(),
            "a step ran before the refusal"
        );
    }
}

/// The JSON histogram of 2+2W+fence.sc (its forbidden outcome x=1, y=1 among them) as
/// `states` and an extra top-level text.
fn histogram(states: &str, extra: &str) -> String {
    format!(
        r#"{{"test": "2+2W+fence.sc", "gpu": "NVIDIA H100", "sm": "sm_90", {extra}
            "states": [{states}]}}"#
    )
}

const TEST_2_2W: &str =
    "PTX 2+2W+fence.sc\n{\n x=0; y=0;\n}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n \
st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1 ;\n fence.sc.gpu | fence.sc.gpu ;\n \
st.relaxed.gpu y, 2 | st.relaxed.gpu x, 2 ;\nexists (x == 1 /\\ y == 1)\n";

#[test]
fn compare_refuses_histograms_that_would_judge_another_outcome() {
    let d = scratch(SUITE, "compare");
    write(&d, "tests/2+2W+fence.sc.litmus", TEST_2_2W);
    let tests = d.join("tests");
    let compare = |file: &str| {
        run_in(
            &d,
            &["compare", "--tests", tests.to_str().unwrap(), file],
            None,
            120,
        )
    };
    // The reference: x=1, y=1 observed is forbidden (exit 1).
    write(
        &d,
        "ok.json",
        &histogram(r#"{"count": 5, "values": {"x": 1, "y": 1}}"#, ""),
    );
    assert_eq!(
        compare("ok.json").code,
        Some(1),
        "{}",
        compare("ok.json").all()
    );
    // A duplicate key inside a state: the last x=2 would make it x=2, y=1 (allowed).
    write(
        &d,
        "dup-state.json",
        &histogram(r#"{"count": 5, "values": {"x": 1, "y": 1, "x": 2}}"#, ""),
    );
    refused(&compare("dup-state.json"), "duplicate key `x`");
    // A duplicate "test" key: the histogram would be judged against another test.
    write(
        &d,
        "dup-test.json",
        &histogram(
            r#"{"count": 5, "values": {"x": 1, "y": 1}}"#,
            r#""test": "other","#,
        ),
    );
    refused(&compare("dup-test.json"), "duplicate key `test`");
    // A state seen 0 times was not observed.
    write(
        &d,
        "zero.json",
        &histogram(r#"{"count": 0, "values": {"x": 1, "y": 1}}"#, ""),
    );
    refused(&compare("zero.json"), "a count of 0");
    write(
        &d,
        "zero.log",
        "Test 2+2W+fence.sc Allowed\nHistogram (1 states)\n0     *>x=1; y=1;\n",
    );
    refused(&compare("zero.log"), "a count of 0");
}

#[test]
fn triton_metadata_that_contradicts_the_kernel_is_refused() {
    let d = scratch(SUITE, "triton");
    let ptx = |dir: &str| {
        format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry add_one(.param .u64 p, .param .u64 s) {dir}\n{{\n\
             .reg .u64 %rd<4>;\n.reg .u32 %r<4>;\nld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\n\
             mul.wide.u32 %rd2, %r1, 4;\nadd.u64 %rd3, %rd1, %rd2;\nld.global.u32 %r2, [%rd3];\n\
             add.u32 %r2, %r2, 1;\nst.global.u32 [%rd3], %r2;\nret;\n}}\n"
        )
    };
    write(&d, "k.ptx", &ptx(".reqntid 128"));
    // num_warps 4 × warp_size 8 = 32 threads would run a quarter of the kernel's 128.
    write(
        &d,
        "k.json",
        r#"{"name": "add_one", "num_warps": 4, "warp_size": 8, "shared": 0}"#,
    );
    let r = run_in(&d, &["run", "k.ptx", "--arg", "u32[128]:zero"], None, 60);
    refused(&r, "warp_size = 8");
    // Metadata whose CTA contradicts `.reqntid`.
    write(
        &d,
        "k.json",
        r#"{"name": "add_one", "num_warps": 2, "shared": 0}"#,
    );
    let r = run_in(&d, &["run", "k.ptx", "--arg", "u32[128]:zero"], None, 60);
    refused(&r, ".reqntid 128");
    // `.maxntid` is enforced for any launch.
    write(&d, "m.ptx", &ptx(".maxntid 64"));
    let r = run_in(
        &d,
        &[
            "run",
            "m.ptx",
            "--kernel",
            "add_one",
            "--block",
            "128",
            "--arg",
            "u32[128]:zero",
            "--arg",
            "u64:0",
        ],
        None,
        60,
    );
    refused(&r, ".maxntid 64");
    // A name with control bytes is not a kernel name.
    write(
        &d,
        "k.json",
        "{\"name\": \"add_one\\u001b]0;owned\\u0007\", \"num_warps\": 4}",
    );
    let r = run_in(&d, &["run", "k.ptx", "--arg", "u32[128]:zero"], None, 60);
    refused(&r, "not a PTX identifier");
}

/// Checks that none of the outputs of `args` run in `dir` holds a raw control character.
fn no_raw_controls(dir: &Path, args: &[&str]) -> String {
    let r = run_in(dir, args, None, 120);
    clean(&r);
    r.out
}

#[test]
fn echoed_names_never_put_control_bytes_on_the_terminal() {
    let d = scratch(SUITE, "controls");
    // A litmus test's name (litmus, explain, harness).
    let f = write(
        &d,
        "t.litmus",
        &TEST_2_2W.replace("PTX 2+2W+fence.sc", "PTX evil\u{1b}[2J\u{7}name"),
    );
    for args in [
        vec!["litmus", f.as_str()],
        vec!["explain", f.as_str()],
        vec!["harness", "--out", "h", f.as_str()],
    ] {
        let out = no_raw_controls(&d, &args);
        assert!(out.contains("\\u{1b}"), "{args:?}: {out}");
    }
    // A hardware log's test name and state key.
    write(&d, "tests/2+2W+fence.sc.litmus", TEST_2_2W);
    write(
        &d,
        "l.log",
        "Test 2+2W+fence.sc\u{1b}[31m Allowed\nHistogram (1 states)\n5     *>x\u{7}=1; y=1;\n",
    );
    no_raw_controls(&d, &["compare", "--tests", "tests", "l.log"]);
    // A plan's step key.
    write(&d, "k.ptx", STORE7);
    write(
        &d,
        "p.json",
        "{\"version\": 1, \"module\": \"k.ptx\", \"steps\": [{\"\\u001b[2Jlaunch\": {}}]}",
    );
    no_raw_controls(&d, &["run", "--plan", "p.json"]);
    // A race report's instruction text and kernel name.
    write(
        &d,
        "r.json",
        r#"{"kernel": "k\u001b[2J", "grid": [1, 1, 1], "block": [64, 1, 1], "exit": 1, "races": [
          {"first": {"line": 6, "instruction": "st.shared.u32 [%r1], %r2;\u0007", "kind": "write",
            "sem": "weak", "scope": null, "space": "shared", "cta": [0, 0, 0], "thread": [32, 0, 0],
            "warp": 1, "lane": 0, "address": "0x20", "bytes": 4},
           "second": {"line": 5, "instruction": "ld.shared.u32 %r3, [%r1];", "kind": "read",
            "sem": "weak", "scope": null, "space": "shared", "cta": [0, 0, 0], "thread": [0, 0, 0],
            "warp": 0, "lane": 0, "address": "0x20", "bytes": 4},
           "reason": "no bar.sync between them\u001b[0m", "seen": "every"}]}"#,
    );
    for format in ["text", "dot", "svg"] {
        no_raw_controls(
            &d,
            &["explain", "--race-report", "r.json", "--format", format],
        );
    }
}
