//! Running `ptxemu` on hostile input for the second pass's tests (issue 38): under a time
//! bound (a command that hangs is killed and reported), optionally under an address-space cap
//! (`ulimit -v`, as an attacker's huge allocation meets it on a shared machine).
//!
//! `PTXEMU_UNDER_TEST=/path/to/ptxemu` runs the tests against another build (each test was run
//! once against the code before its fix, to see it fail).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The binary under test.
pub fn bin() -> PathBuf {
    std::env::var_os("PTXEMU_UNDER_TEST")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_ptxemu")))
}

/// What a bounded run did.
pub struct Ran {
    /// Exit status (`None`: killed by a signal, or by the time bound).
    pub code: Option<i32>,
    /// Standard output and standard error.
    pub out: String,
    /// Standard error alone.
    pub err: String,
    /// Wall time.
    pub took: Duration,
    /// The time bound killed it.
    pub killed: bool,
}

impl Ran {
    /// Standard output and error as one text, for messages (the last 4000 characters).
    pub fn all(&self) -> String {
        let n = self.out.chars().count();
        let tail: String = self.out.chars().skip(n.saturating_sub(4000)).collect();
        format!("exit {:?} after {:?}\n{tail}", self.code, self.took)
    }
}

/// Runs `ptxemu args` in `dir`, under `cap_kib` of address space if given, killed after
/// `secs`.
pub fn run_in(dir: &Path, args: &[&str], cap_kib: Option<u64>, secs: u64) -> Ran {
    let mut cmd = match cap_kib {
        Some(k) => {
            let mut c = Command::new("sh");
            c.arg("-c")
                .arg(format!("ulimit -v {k} && exec \"$0\" \"$@\""))
                .arg(bin());
            c
        }
        None => Command::new(bin()),
    };
    cmd.args(args)
        .current_dir(dir)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd.spawn().expect("ptxemu starts");
    // Both pipes are drained while the command runs, so that it never waits on a full pipe.
    let drain = |p: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut p) = p {
                let _ = p.read_to_end(&mut v);
            }
            v
        })
    };
    let out = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let err = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let killed = loop {
        if child.try_wait().expect("wait").is_some() {
            break false;
        }
        if start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            break true;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let status = child.wait().expect("status");
    let (out, err) = (
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    );
    let err = String::from_utf8_lossy(&err).into_owned();
    Ran {
        code: status.code(),
        out: String::from_utf8_lossy(&out).into_owned() + &err,
        err,
        took: start.elapsed(),
        killed,
    }
}

/// Runs `ptxemu args` in the current folder, killed after `secs`.
pub fn run(args: &[&str], secs: u64) -> Ran {
    run_in(Path::new("."), args, None, secs)
}

/// A fresh scratch folder.
pub fn scratch(suite: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxemu-{suite}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}

/// Writes `text` to `dir/name`; returns the path as text.
pub fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).expect("folder");
    }
    std::fs::write(&p, text).expect("scratch file");
    p.to_string_lossy().into_owned()
}

/// Asserts a run was refused (exit status 2) with `frag` in its message, promptly, and
/// without a panic, an abort or raw control bytes.
#[track_caller]
pub fn refused(r: &Ran, frag: &str) {
    assert_eq!(r.code, Some(2), "{}", r.all());
    assert!(r.out.contains(frag), "expected `{frag}` in:\n{}", r.all());
    clean(r);
}

/// Asserts no panic text and no control characters but newline and tab in the output.
#[track_caller]
pub fn clean(r: &Ran) {
    assert!(!r.out.contains("panicked"), "{}", r.all());
    assert!(
        !r.out
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "raw control characters: {:?}",
        r.out
    );
}

/// A kernel `k(.param .u64 p)` that stores 7 to `p[0]`.
pub const STORE7: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
.visible .entry k(.param .u64 p)\n{\n.reg .u64 %rd<2>;\n.reg .u32 %r<2>;\n\
ld.param.u64 %rd1, [p];\nmov.u32 %r1, 7;\nst.global.u32 [%rd1], %r1;\nret;\n}\n";
