//! The Dat3M PTX litmus corpus (vendored in litmus/corpus/dat3m-ptx, with its licence) against its expectation CSVs:
//! both safety CSVs under their models and both liveness CSVs. Every row must agree.

use std::path::{Path, PathBuf};

use litmus::report::Expectations;
use litmus::run::{run, RunOptions};
use models::ptx::Model;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../litmus/corpus/dat3m-ptx")
}

/// Runs every row of `csv` and returns (passed, failures).
fn check(csv: &str, model: Model, liveness: bool) -> (usize, Vec<String>) {
    let root = corpus();
    let text = std::fs::read_to_string(root.join("expected").join(csv)).expect("expectation CSV");
    let exp = Expectations::parse(&text).unwrap();
    let ro = RunOptions {
        model,
        liveness,
        ..RunOptions::default()
    };
    let mut passed = 0;
    let mut failures = Vec::new();
    for (path, want) in &exp.rows {
        let src =
            std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
        let test = litmus::parse(&src).unwrap_or_else(|e| panic!("{path}:{e}"));
        match run(&test, &ro) {
            Ok(r) if r.holds == *want => passed += 1,
            Ok(r) => failures.push(format!(
                "{path}: expected {want}, got {} ({} allowed of {})",
                r.holds, r.allowed, r.candidates
            )),
            Err(e) => failures.push(format!("{path}: {e}")),
        }
    }
    (passed, failures)
}

fn all_agree(csv: &str, model: Model, liveness: bool, rows: usize) {
    let (passed, failures) = check(csv, model, liveness);
    assert!(
        failures.is_empty(),
        "{csv}: {passed} passed, {} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(passed, rows, "{csv}: every row runs");
}

#[test]
fn ptx_v7_5_safety() {
    all_agree("PTXv7_5-expected.csv", Model::PtxV75, false, 264);
}

#[test]
fn ptx_v6_0_safety() {
    all_agree("PTXv6_0-expected.csv", Model::PtxV60, false, 135);
}

#[test]
fn ptx_v7_5_liveness() {
    all_agree("PTXv7_5-Liveness-expected.csv", Model::PtxV75, true, 91);
}

#[test]
fn ptx_v6_0_liveness() {
    all_agree("PTXv6_0-Liveness-expected.csv", Model::PtxV60, true, 91);
}

/// The corpus tells the models apart: the SC reference model and the v6.0 model (which has no
/// proxies) must each disagree with the v7.5 expectations somewhere, or the checks above
/// would prove little.
#[test]
fn models_are_distinguishable() {
    let (_, sc_fail) = check("PTXv7_5-expected.csv", Model::Sc, false);
    assert!(
        sc_fail.len() > 50,
        "SC disagrees with v7.5 on many weak tests: {}",
        sc_fail.len()
    );
    let (_, v60_fail) = check("PTXv7_5-expected.csv", Model::PtxV60, false);
    assert!(
        v60_fail.iter().any(|f| f.contains("proxy")),
        "v6.0 knows no proxies"
    );
}

/// Options where the sources disagree do not change any corpus verdict (litmus-format spec
/// §3.6): `fence.sc` as an acq_rel fence or not.
#[test]
fn fence_sc_option_is_invisible_on_the_corpus() {
    let root = corpus();
    let exp = Expectations::parse(
        &std::fs::read_to_string(root.join("expected/PTXv7_5-expected.csv")).unwrap(),
    )
    .unwrap();
    let mut ro = RunOptions::default();
    ro.opts.fence_sc_is_acq_rel = false;
    for (path, want) in &exp.rows {
        let test = litmus::parse(&std::fs::read_to_string(root.join(path)).unwrap()).unwrap();
        assert_eq!(run(&test, &ro).unwrap().holds, *want, "{path}");
    }
}
