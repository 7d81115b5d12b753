//! `ptxemu explain --race-report`: a race report from a file or stdin, in words, SVG, DOT and
//! HTML, and clear refusals of what is not a race report. The reports are hand-written to
//! the `run --race --json` contract (`tools/tests/data/race_reports/`).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn reports() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/race_reports")
}

fn report(name: &str) -> String {
    reports().join(name).to_string_lossy().into_owned()
}

fn ptxemu(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptxemu"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ptxemu starts");
    let mut pipe = child.stdin.take().expect("stdin");
    pipe.write_all(stdin.unwrap_or("").as_bytes())
        .expect("stdin written");
    drop(pipe);
    child.wait_with_output().expect("ptxemu ends")
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn refused(o: &Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(2),
        "stdout: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn text_names_both_accesses_the_conditions_and_a_fix() {
    let t = ok(&ptxemu(
        &["explain", "--race-report", &report("reduce_no_sync.json")],
        None,
    ));
    assert!(
        t.starts_with("1 data race(s) in kernel reduce_no_sync."),
        "{t}"
    );
    assert!(t.contains("a: line 60: st.shared.f32 [%r3], %f4;"), "{t}");
    assert!(t.contains(
        "write, weak by thread (32,0,0) of CTA (0,0,0) (warp 1, lane 0), at shared 0x20, 4 byte(s)"
    ));
    assert!(t.contains("b: line 58: ld.shared.f32 %f3, [%r12];"));
    assert!(
        t.contains("[yes] they are not morally strong: a's `st.shared.f32 [%r3], %f4;` is weak")
    );
    assert!(t.contains(
        "[yes] neither is before the other in causality order: no bar.sync between them"
    ));
    assert!(t.contains("Fix: order them: bar.sync (__syncthreads())"));
    assert!(t.contains("(seen on every explored schedule)"));
}

#[test]
fn stdin_with_a_dash_or_no_value() {
    let json = std::fs::read_to_string(reports().join("spinlock_cta_races.json")).unwrap();
    let from_file = ok(&ptxemu(
        &[
            "explain",
            "--race-report",
            &report("spinlock_cta_races.json"),
        ],
        None,
    ));
    let dash = ok(&ptxemu(&["explain", "--race-report", "-"], Some(&json)));
    let bare = ok(&ptxemu(&["explain", "--race-report"], Some(&json)));
    assert_eq!(from_file, dash);
    assert_eq!(from_file, bare);
    assert!(from_file.contains("the .cta scope of a's `st.release.cta.global.u32 [%rd3], %r10;` does not include thread (0,0,0) of CTA (1,0,0)"));
    assert!(from_file.contains("Race 2 (seen on some explored schedules only)"));
}

#[test]
fn pictures_svg_dot_and_html() {
    let r = report("spinlock_cta_races.json");
    let svg = ok(&ptxemu(
        &["explain", "--race-report", &r, "--format", "svg"],
        None,
    ));
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert_eq!(svg.matches("<g class=\"event\">").count(), 4);
    assert!(svg.contains("cause? missing"));
    let dot = ok(&ptxemu(
        &["explain", "--race-report", &r, "--format", "dot"],
        None,
    ));
    assert!(dot.starts_with("digraph races {") && dot.contains("r1a -> r1b"));
    let out = std::env::temp_dir().join(format!("ptxemu-race-report-{}.html", std::process::id()));
    ok(&ptxemu(
        &[
            "explain",
            "--race-report",
            &r,
            "--format",
            "html",
            "-o",
            out.to_str().unwrap(),
        ],
        None,
    ));
    let page = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert_eq!(page.matches("<figure><svg").count(), 2);
}

#[test]
fn a_report_without_races() {
    let r = report("no_races.json");
    let t = ok(&ptxemu(&["explain", "--race-report", &r], None));
    assert_eq!(
        t.trim_end(),
        "No data race in kernel reduce_sync in the report."
    );
    let err = refused(&ptxemu(
        &["explain", "--race-report", &r, "--format", "svg"],
        None,
    ));
    assert!(
        err.contains("the report has no race: nothing to draw"),
        "{err}"
    );
}

#[test]
fn a_suspect_report_is_flagged() {
    let t = ok(&ptxemu(
        &["explain", "--race-report", &report("morally_strong.json")],
        None,
    ));
    assert!(
        t.contains("[NO ] they are not morally strong: both are strong"),
        "{t}"
    );
    assert!(t.contains("the report itself is suspect"));
}

#[test]
fn bad_reports_are_refused_with_where_and_why() {
    let cases = [
        (
            "bad_syntax.json",
            "bad_syntax.json: 1:34: not JSON: key must be a string",
        ),
        (
            "bad_missing_thread.json",
            "bad_missing_thread.json: races[0].first.thread: missing",
        ),
        (
            "bad_cta_type.json",
            "races[0].first.cta[1]: expected a non-negative integer, found a string",
        ),
        (
            "bad_no_races.json",
            "races: missing: the run was not made with --race",
        ),
    ];
    for (file, want) in cases {
        let err = refused(&ptxemu(&["explain", "--race-report", &report(file)], None));
        assert!(err.contains(want), "{file}: {err}");
    }
    let err = refused(&ptxemu(&["explain", "--race-report", "-"], Some("")));
    assert!(err.contains("<stdin>: 1:0: not JSON"), "{err}");
    let err = refused(&ptxemu(
        &["explain", "--race-report", "/nonexistent/report.json"],
        None,
    ));
    assert!(err.contains("/nonexistent/report.json"), "{err}");
    let err = refused(&ptxemu(
        &[
            "explain",
            "--race-report",
            &report("reduce_no_sync.json"),
            "--format",
            "md",
        ],
        None,
    ));
    assert!(
        err.contains("--race-report is explained as text, dot, svg or html"),
        "{err}"
    );
}

#[test]
fn a_report_and_a_litmus_test_do_not_mix() {
    let err = refused(&ptxemu(
        &[
            "explain",
            "litmus/tests/library/MP+rel+acq.litmus",
            "--race-report",
            &report("no_races.json"),
        ],
        None,
    ));
    assert!(err.contains("cannot be used with"), "{err}");
    let err = refused(&ptxemu(&["explain"], None));
    assert!(err.contains("TEST"), "{err}");
}
