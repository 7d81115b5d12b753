//! Triton's mixed-precision arithmetic (`tests/fixtures/triton/mixed/`): the kernel of
//! `kernels.py` widens fp16 or bf16 values to fp32 and adds, subtracts and fused-multiply-adds
//! them with fp32 values. Triton 3.9 compiles it for sm_100a to `add.rn.f32.f16`,
//! `sub.rn.f32.f16` and `fma.rn.f32.f16` (`.bf16` alike), and for sm_90a to `cvt.f32.f16`
//! followed by the fp32 instruction (`gen.py`). Both builds run through `ptxemu run` with the
//! launch of `runs/NAME/manifest.json` and must equal the numpy references of `runs.py` byte for
//! byte (NaN as PTX's canonical 0x7FFFFFFF).

mod fixture_common;

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/triton/mixed")
}

/// Runs fixture `name` on its build for `sm` (`sm90`, `sm100`).
fn run(name: &str, sm: &str) {
    let dir = root().join("runs").join(name);
    let m = fixture_common::manifest(&dir);
    let ptx = m["ptx"].as_str().expect("ptx").replace("sm100", sm);
    let report = fixture_common::run_ptx(&root(), &dir, Some(&ptx));
    let meta = &report["triton_metadata"];
    assert_eq!(report["block"][0], meta["num_warps"].as_u64().unwrap() * 32);
}

/// The mnemonics of the build for `sm` of fixture `name` that name two float types
/// (`add.rn.f32.f16`), other than conversions.
fn mixed_mnemonics(name: &str, sm: &str) -> Vec<String> {
    let path = root().join(format!("corpus/{name}.{sm}/mixed_precision.ptx"));
    let text = std::fs::read_to_string(&path).expect("the corpus PTX");
    let mut v: Vec<String> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|m| !m.starts_with("cvt") && (m.ends_with(".f32.f16") || m.ends_with(".f32.bf16")))
        .map(str::to_string)
        .collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn the_sm100_builds_hold_the_mixed_precision_forms() {
    for (name, half) in [("mixed_f16", "f16"), ("mixed_bf16", "bf16")] {
        let want: Vec<String> = ["add", "fma", "sub"]
            .iter()
            .map(|op| format!("{op}.rn.f32.{half}"))
            .collect();
        assert_eq!(mixed_mnemonics(name, "sm100"), want);
        assert!(mixed_mnemonics(name, "sm90").is_empty());
    }
}

#[test]
fn f16_sm100() {
    run("mixed_f16", "sm100");
}

#[test]
fn f16_sm90() {
    run("mixed_f16", "sm90");
}

#[test]
fn bf16_sm100() {
    run("mixed_bf16", "sm100");
}

#[test]
fn bf16_sm90() {
    run("mixed_bf16", "sm90");
}
