//! Hostile input (issue 23): every attack ends with a clear message and the right exit status,
//! never a crash, a silent wrong answer, or unbounded memory or time.

mod fixture_common;

use fixture_common::{assert_exit, assert_stderr_has, ptxemu, stderr};

use std::path::{Path, PathBuf};
use std::process::Output;

fn scratch(name: &str) -> PathBuf {
    fixture_common::scratch("hostile", name)
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    fixture_common::write_file(dir, name, text)
}

/// Standard output and standard error together.
fn all(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

/// A one-thread test whose condition is a flat chain of `n` comparisons joined by `op`.
fn chain_test(n: usize, op: &str) -> String {
    let cond = vec!["x == 1"; n].join(&format!(" {op} "));
    format!("PTX C\n{{\n x=0;\n}}\n P0@cta 0,gpu 0 ;\n st.relaxed.gpu x, 1 ;\nexists ({cond})\n")
}

#[test]
fn flat_condition_chains_do_not_overflow_the_stack() {
    let d = scratch("chains");
    for (n, op) in [(20_000, "/\\"), (200_000, "\\/"), (200_000, "/\\")] {
        let f = write(&d, "c.litmus", &chain_test(n, op));
        let o = ptxemu(&["litmus", &f]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "litmus, {n} `{op}`: {}",
            stderr(&o)
        );
        let o = ptxemu(&["explain", &f]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "explain, {n} `{op}`: {}",
            stderr(&o)
        );
        let out = d.join("h");
        let o = ptxemu(&["harness", "--out", out.to_str().unwrap(), &f]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "harness, {n} `{op}`: {}",
            stderr(&o)
        );
    }
}

#[test]
fn a_test_with_hundreds_of_threads_is_refused_with_its_line() {
    let d = scratch("threads");
    for n in [200usize, 1000] {
        let heads: Vec<String> = (0..n).map(|i| format!("P{i}@cta {i},gpu 0")).collect();
        let body = vec!["st.relaxed.gpu x, 1"; n].join(" | ");
        let src = format!(
            "PTX T\n{{\n x=0;\n}}\n {} ;\n {body} ;\nexists (x == 1)\n",
            heads.join(" | ")
        );
        let f = write(&d, "t.litmus", &src);
        for cmd in ["litmus", "explain", "harness"] {
            let o = ptxemu(&[cmd, &f]);
            let e = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{cmd}, {n} threads: {e}");
            assert!(
                e.contains("t.litmus:5") && e.contains("at most 64 threads"),
                "{cmd}: {e}"
            );
        }
    }
}

const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

#[test]
fn an_array_whose_size_overflows_is_refused_naming_it() {
    let d = scratch("overflow");
    for decl in [
        ".global .u32 g[4294967295][4294967295];",
        ".shared .u64 g[4611686018427387904];",
    ] {
        let f = write(
            &d,
            "o.ptx",
            &format!("{HEADER}{decl}\n.visible .entry k()\n{{\nret;\n}}\n"),
        );
        let o = ptxemu(&["check", &f]);
        assert_eq!(o.status.code(), Some(1), "{decl}");
        let out = String::from_utf8_lossy(&o.stdout).into_owned() + &stderr(&o);
        assert!(
            out.contains("o.ptx:4:1: error[size-overflow]: the size of `g`"),
            "{out}"
        );
    }
}

#[test]
fn echoed_input_is_escaped_cut_and_keeps_its_characters() {
    let d = scratch("echo");
    let f = write(
        &d,
        "c.ptx",
        &format!("{HEADER}.visible .entry k() {{ \u{1b}[2J\u{7} ret; }}\n"),
    );
    let o = ptxemu(&["check", &f]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned() + &stderr(&o);
    assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
    assert!(out.contains("unexpected character `\\u{1b}`"), "{out}");
    let f = write(
        &d,
        "u.ptx",
        &format!("{HEADER}.visible .entry k() {{ é ret; }}\n"),
    );
    let out = all(&ptxemu(&["check", &f]));
    assert!(
        out.contains("`é`") && out.contains("\n                        ^\n"),
        "{out}"
    );
    let long = format!(
        "{HEADER}// {}\n.visible .entry k() {{ {} @@ }}\n",
        "x",
        "mov.u32 %r1, 1; ".repeat(60_000)
    );
    let f = write(&d, "l.ptx", &long);
    let out = all(&ptxemu(&["check", &f]));
    assert!(
        out.len() < 2_000 && out.contains('…'),
        "{} bytes",
        out.len()
    );
}

#[test]
fn an_empty_file_and_version_0_get_their_own_messages() {
    let d = scratch("empty-file");
    let f = write(&d, "e.ptx", "");
    let out = all(&ptxemu(&["check", &f]));
    assert!(out.contains("e.ptx:1:1: error[empty-module]"), "{out}");
    let f = write(
        &d,
        "v.ptx",
        ".version 0.0\n.target sm_90\n.address_size 64\n",
    );
    let out = all(&ptxemu(&["check", &f]));
    assert!(
        out.contains("v.ptx:1:10: error: PTX ISA 0.0 does not exist"),
        "{out}"
    );
}

#[test]
fn an_empty_litmus_folder_checks_nothing_and_says_so() {
    let d = scratch("empty-folder");
    let dir = d.join("none");
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.to_str().unwrap();
    let html = d.join("html");
    for args in [
        vec!["litmus", dir],
        vec!["harness", "--out", d.join("h").to_str().unwrap(), dir],
        vec![
            "explain",
            "--format",
            "html",
            "-o",
            html.to_str().unwrap(),
            dir,
        ],
    ] {
        let o = ptxemu(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("no `*.litmus` file"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn explain_html_on_a_folder_recurses_like_litmus() {
    let d = scratch("recurse");
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("../litmus/tests/library/2+2W+rel.litmus");
    std::fs::create_dir_all(d.join("tests/sub")).unwrap();
    std::fs::copy(&lib, d.join("tests/sub/2+2W+rel.litmus")).unwrap();
    let out = d.join("html");
    let o = ptxemu(&[
        "explain",
        "--format",
        "html",
        "-o",
        out.to_str().unwrap(),
        d.join("tests").to_str().unwrap(),
    ]);
    assert_exit(&o, 0);
    assert!(out.join("sub-2+2W+rel.html").is_file());
}

#[test]
fn readers_check_the_size_before_reading() {
    if !Path::new("/dev/zero").exists() {
        eprintln!("no /dev/zero here; skipped");
        return;
    }
    for cmd in ["check", "litmus", "compare"] {
        let o = ptxemu(&[cmd, "/dev/zero"]);
        let out = String::from_utf8_lossy(&o.stdout).into_owned() + &stderr(&o);
        assert_ne!(o.status.code(), Some(0), "{cmd}");
        assert!(
            out.contains("yields more than 134217728 bytes"),
            "{cmd}: {out}"
        );
    }
    let d = scratch("sizes");
    let f = write(
        &d,
        "k.ptx",
        &format!("{HEADER}.visible .entry k(.param .u64 p)\n{{\nret;\n}}\n"),
    );
    let o = ptxemu(&["run", &f, "--kernel", "k", "--arg", "u32[4]:file=/dev/zero"]);
    assert_eq!(o.status.code(), Some(2));
    assert_stderr_has(&o, "yields more than 16 bytes");
    let big = write(&d, "big.bin", "");
    std::fs::File::options()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(8 << 30)
        .unwrap();
    let o = ptxemu(&[
        "run",
        &f,
        "--kernel",
        "k",
        "--arg",
        &format!("u32[4]:file={big}"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_stderr_has(&o, "has 8589934592 bytes but 16 are expected");
}

#[test]
fn explain_takes_timeout_with_litmus_semantics() {
    let d = scratch("explain-timeout");
    let n = 20;
    let heads: Vec<String> = (0..n).map(|i| format!("P{i}@cta {i},gpu 0")).collect();
    let body = vec!["st.relaxed.gpu x, 1"; n].join(" | ");
    let f = write(
        &d,
        "t.litmus",
        &format!(
            "PTX T\n{{\n x=0;\n}}\n {} ;\n {body} ;\nexists (x == 1)\n",
            heads.join(" | ")
        ),
    );
    let started = std::time::Instant::now();
    let o = ptxemu(&["explain", "--timeout", "0.5", &f]);
    assert_exit(&o, 3);
    assert_stderr_has(&o, "stopped by --timeout 0.5");
    assert!(started.elapsed().as_secs() < 30);
    let o = ptxemu(&["explain", "--timeout", "nan", &f]);
    assert_exit(&o, 2);
}
