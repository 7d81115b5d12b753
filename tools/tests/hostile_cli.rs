//! Hostile input (issue 23): every attack ends with a clear message and the right exit status,
//! never a crash, a silent wrong answer, or unbounded memory or time.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn ptxemu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxemu"))
        .args(args)
        .output()
        .expect("ptxemu runs")
}

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxemu-hostile-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
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
        assert_eq!(o.status.code(), Some(0), "litmus, {n} `{op}`: {}", stderr(&o));
        let o = ptxemu(&["explain", &f]);
        assert_eq!(o.status.code(), Some(0), "explain, {n} `{op}`: {}", stderr(&o));
        let out = d.join("h");
        let o = ptxemu(&["harness", "--out", out.to_str().unwrap(), &f]);
        assert_eq!(o.status.code(), Some(0), "harness, {n} `{op}`: {}", stderr(&o));
    }
}

#[test]
fn a_test_with_hundreds_of_threads_is_refused_with_its_line() {
    let d = scratch("threads");
    for n in [200usize, 1000] {
        let heads: Vec<String> = (0..n).map(|i| format!("P{i}@cta {i},gpu 0")).collect();
        let body = vec!["st.relaxed.gpu x, 1"; n].join(" | ");
        let src = format!("PTX T\n{{\n x=0;\n}}\n {} ;\n {body} ;\nexists (x == 1)\n", heads.join(" | "));
        let f = write(&d, "t.litmus", &src);
        for cmd in ["litmus", "explain", "harness"] {
            let o = ptxemu(&[cmd, &f]);
            let e = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{cmd}, {n} threads: {e}");
            assert!(e.contains("t.litmus:5") && e.contains("at most 64 threads"), "{cmd}: {e}");
        }
    }
}
