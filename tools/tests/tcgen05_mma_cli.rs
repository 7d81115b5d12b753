//! `tcgen05.mma`/`tcgen05.commit` through the CLI beyond the fixtures: `--trace-tmem` shows
//! which D cells each MMA produced, each commit and each tcgen05.cp, as text and in `--json`; the sparse
//! `tcgen05.mma.sp` and `.cta_group::2` outside a CTA pair are refused by name.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs fixture `mma_f16_m128n64` with `extra` flags.
fn run_fixture(extra: &[&str]) -> Output {
    let dir = root().join("tests/fixtures/tcgen05/mma_f16_m128n64");
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptxemu"));
    cmd.arg("run")
        .arg(dir.join("kernel.ptx"))
        .args(["--kernel", "mma", "--grid", "1", "--block", "128"]);
    for a in m["args"].as_array().unwrap() {
        let spec = a
            .as_str()
            .unwrap()
            .replace("file=", &format!("file={}/", dir.display()));
        cmd.arg("--arg").arg(spec);
    }
    cmd.args(extra).output().unwrap()
}

#[test]
fn the_text_trace_shows_each_mma_and_commit() {
    let o = run_fixture(&["--trace-tmem"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mma = "thread 0: MMA m128n64k16 .kind::f16 wrote D lanes 0-127 x columns 0-63";
    assert_eq!(out.matches(mma).count(), 2, "{out}");
    assert!(
        out.contains("committed 2 MMA(s) to the mbarrier at shared offset"),
        "{out}"
    );
    // The MMA lines come before the commit, which comes before the first tcgen05.ld.
    let (m, c, l) = (
        out.find(mma).unwrap(),
        out.find("committed 2").unwrap(),
        out.find("tcgen05.ld.sync.aligned").unwrap(),
    );
    assert!(m < c && c < l, "{out}");
}

#[test]
fn the_json_trace_has_the_mma_cells() {
    let o = run_fixture(&["--trace-tmem", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let trace = v["tmem_trace"].as_array().expect("tmem_trace");
    let mmas: Vec<&serde_json::Value> = trace.iter().filter(|e| e["action"] == "mma").collect();
    assert_eq!(mmas.len(), 2);
    assert_eq!(mmas[0]["shape"], serde_json::json!([128, 64, 16]));
    assert_eq!(mmas[0]["lanes"], serde_json::json!([0, 128]));
    assert_eq!(mmas[0]["columns"], serde_json::json!([0, 64]));
    assert_eq!(mmas[0]["accumulate"], true);
    let commit = trace.iter().find(|e| e["action"] == "commit").unwrap();
    assert_eq!(commit["mmas"], 2);
}

fn check(name: &str, body: &str) -> Output {
    let src = format!(
        ".version 8.7\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;\n{body}\nret;\n}}\n"
    );
    let path = std::env::temp_dir().join(format!("tc5mma-{name}-{}.ptx", std::process::id()));
    std::fs::write(&path, src).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_ptxemu"))
        .arg("run")
        .arg(&path)
        .args(["--kernel", "k", "--block", "32"])
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    o
}

#[test]
fn sparse_mma_is_refused_by_name() {
    let o = check(
        "sp",
        "tcgen05.mma.sp.cta_group::1.kind::f16 [%r1], %rd1, %rd2, [%r3], %r2, %p1;",
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("tcgen05.mma.sp"), "{err}");
    assert!(err.contains("unsupported"), "{err}");
}

#[test]
fn cta_pair_mma_is_refused_at_run_time() {
    let o = check(
        "pair",
        "mov.u32 %r1, 0;\nmov.u64 %rd1, 0;\nmov.u32 %r2, 0;\nsetp.eq.u32 %p1, %r1, 0;\ntcgen05.mma.cta_group::2.kind::f16 [%r1], %rd1, %rd1, %r2, %p1;",
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("cta_group::2") && err.contains("CTA pair"),
        "{err}"
    );
}

/// Runs fixture `cp_128x256b` (one `tcgen05.cp.128x256b`) with its flags and `extra`.
fn run_cp(extra: &[&str]) -> Output {
    let dir = root().join("tests/fixtures/tcgen05/cp_128x256b");
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptxemu"));
    cmd.arg("run").arg(dir.join("kernel.ptx")).args([
        "--kernel",
        "cp_128x256b",
        "--grid",
        "1",
        "--block",
        "128",
    ]);
    for f in m["flags"].as_array().unwrap() {
        cmd.arg(f.as_str().unwrap());
    }
    for a in m["args"].as_array().unwrap() {
        let spec = a
            .as_str()
            .unwrap()
            .replace("file=", &format!("file={}/", dir.display()));
        cmd.arg("--arg").arg(spec);
    }
    cmd.args(extra).output().unwrap()
}

// The PTX ISA's .128x256b shape: 128 lanes (rows) of 256 bits, i.e. 8 32-bit columns.
#[test]
fn the_trace_shows_each_tcgen05_cp_write_as_text_and_json() {
    let o = run_cp(&["--trace-tmem"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let cp = "copied .128x256b from shared address 0x";
    assert_eq!(out.matches(cp).count(), 1, "{out}");
    assert!(
        out.contains("wrote 1024 cells in lanes 0-127 x columns 0-7"),
        "{out}"
    );
    let o = run_cp(&["--trace-tmem", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let cps: Vec<&serde_json::Value> = v["tmem_trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "cp")
        .collect();
    assert_eq!(cps.len(), 1, "{v}");
    let e = cps[0];
    assert_eq!(e["shape"], "128x256b");
    assert_eq!(e["lanes"], serde_json::json!([0, 128]));
    assert_eq!(e["columns"], serde_json::json!([0, 8]));
    assert_eq!(e["cells"], 1024);
    assert!(e["src"].as_str().unwrap().starts_with("0x"), "{e}");
}
