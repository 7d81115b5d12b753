//! A module with an instruction ptxemu does not implement in one kernel (issue 19): `check`
//! reports every such instruction, `run` refuses only the kernel that needs one (naming the
//! construct, its line and the kernel) and runs the others.

mod fixture_common;

use fixture_common::ptxemu;

use std::path::{Path, PathBuf};

fn ptx() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/refusal/two_kernels.ptx")
}

#[test]
fn check_reports_every_unimplemented_instruction() {
    let p = ptx();
    let o = ptxemu(&["check", p.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            ":17:3: error[unsupported]: not supported by ptxemu: the `stacksave` instruction"
        ),
        "{err}"
    );
    assert!(
        err.contains(":18:3: error[unsupported]: not supported by ptxemu: the `vadd` instruction"),
        "{err}"
    );
}

#[test]
fn run_refuses_only_the_kernel_that_needs_it() {
    let p = ptx();
    let dir = std::env::temp_dir().join(format!("ptxemu-refusal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dump = dir.join("out.bin");
    let o = ptxemu(&[
        "run",
        p.to_str().unwrap(),
        "--kernel",
        "good",
        "--arg",
        "u32[1]:zero",
        "--dump",
        &format!("0={}", dump.display()),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(std::fs::read(&dump).unwrap(), 7u32.to_le_bytes());
    let o = ptxemu(&[
        "run",
        p.to_str().unwrap(),
        "--kernel",
        "bad",
        "--arg",
        "u32[1]:zero",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("kernel `bad` cannot run: line 17: unsupported by the interpreter: the `stacksave` instruction"),
        "{err}"
    );
    let o = ptxemu(&[
        "run",
        p.to_str().unwrap(),
        "--kernel",
        "bad",
        "--arg",
        "u32[1]:zero",
        "--json",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    let v: serde_json::Value =
        serde_json::from_str(out.lines().next().unwrap_or("")).expect("JSON");
    assert_eq!(v["error"]["kind"], "unsupported", "{out}");
    std::fs::remove_dir_all(&dir).ok();
}
