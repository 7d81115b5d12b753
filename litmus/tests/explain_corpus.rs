//! Every outcome a conformance-corpus test asks about can be explained: an allowed execution,
//! a forbidden candidate with its axiom and cycle, or a hanging execution — never nothing.

use std::path::Path;

use litmus::explain::{explain, Unproduced};
use litmus::run::RunOptions;
use models::ptx::{Axiom, Model};

fn corpus() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/dat3m-ptx/litmus/PTX");
    litmus::litmus_files(&root).expect("the corpus beside the repository")
}

fn name(f: &Path) -> String {
    f.file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
fn every_corpus_condition_has_something_to_show() {
    let mut bad = Vec::new();
    for model in [Model::PtxV75, Model::PtxV60] {
        let ro = RunOptions {
            model,
            ..RunOptions::default()
        };
        for f in corpus() {
            let test = litmus::parse(&std::fs::read_to_string(&f).unwrap()).unwrap();
            let x = explain(&test, &ro, None).unwrap();
            // The explanation agrees with the run: the condition's outcome is allowed exactly
            // when some allowed execution satisfies it.
            let reachable = x.report.states.values().any(|s| s.satisfies);
            if reachable != x.allowed.is_some() {
                bad.push(format!(
                    "{} ({}): run and explanation disagree",
                    f.display(),
                    model.name()
                ));
            }
            if x.allowed.is_none() {
                let shown = !x.forbidden.is_empty() || x.hang.is_some();
                match (&x.unproduced, shown && x.pictured().is_some()) {
                    (None, true) => {}
                    (Some(Unproduced::NoCompleteExecution), false) => {
                        // Only the forward-progress tests have every completion behind a retry.
                        if !f.to_string_lossy().contains("CADP") {
                            bad.push(format!("{}: no complete execution?", f.display()));
                        }
                    }
                    (Some(Unproduced::Unreachable(why)), false) if !why.is_empty() => {}
                    (u, _) => bad.push(format!(
                        "{} ({}): nothing shown, reason {u:?}",
                        f.display(),
                        model.name()
                    )),
                }
                if x.forbidden.iter().any(|w| w.verdict.is_ok()) {
                    bad.push(format!(
                        "{}: an allowed candidate listed as forbidden",
                        f.display()
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn outcomes_no_ordinary_candidate_produces_are_explained() {
    let ro = RunOptions::default();
    let mut seen = 0;
    for f in corpus() {
        let n = name(&f);
        let want = if n.starts_with("LB+NoThinAir") {
            Some(Axiom::NoThinAir)
        } else if n == "CoWW_" || n == "CoRW_" {
            Some(Axiom::Coherence)
        } else if n.starts_with("quorum") && n.ends_with("-hang") {
            None
        } else {
            continue;
        };
        seen += 1;
        let test = litmus::parse(&std::fs::read_to_string(&f).unwrap()).unwrap();
        let x = explain(&test, &ro, None).unwrap();
        assert!(x.allowed.is_none(), "{n}");
        match want {
            Some(axiom) => {
                assert!(x.steered, "{n}: only a steered enumeration builds these");
                let v = x.forbidden[0].verdict.as_ref().unwrap_err();
                assert_eq!(v.axiom, axiom, "{n}");
                assert!(v.cycle.len() >= 2, "{n}: {v:?}");
                let t = x.text();
                assert!(t.contains(&format!("violates {axiom}")), "{n}: {t}");
            }
            None => {
                let h = x.hang.as_ref().expect("a hanging execution");
                assert!(
                    h.threads
                        .iter()
                        .any(|t| t.contains("waits forever at a barrier")),
                    "{n}"
                );
                assert!(x
                    .text()
                    .contains("No execution of this test runs to completion"));
            }
        }
    }
    assert_eq!(seen, 6, "the six corpus tests with no ordinary candidate");
}
