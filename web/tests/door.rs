//! The playground's JSON door, natively: the verdicts of library tests against the library's
//! hand-worked expectations (`litmus/tests/library/expected.csv`), errors at their line and
//! column, the budget's message, and explanations of chosen outcomes.

use serde_json::{json, Value};

fn call(req: Value) -> Value {
    serde_json::from_str(&ptxemu_web::call(&req.to_string())).expect("the answer is JSON")
}

fn library(name: &str) -> String {
    let p = format!(
        "{}/../litmus/tests/library/{name}.litmus",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(p).unwrap()
}

/// The hand-worked verdicts: name -> whether the condition holds under ptx-v7.5.
fn expected() -> Vec<(String, bool)> {
    let p = format!(
        "{}/../litmus/tests/library/expected.csv",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("//") && !l.trim().is_empty())
        .map(|l| {
            let (path, v) = l.split_once(',').unwrap();
            let name = path.rsplit('/').next().unwrap().trim_end_matches(".litmus");
            (name.to_string(), v.trim() == "1")
        })
        .collect()
}

#[test]
fn every_library_verdict_matches_the_hand_worked_one() {
    let exp = expected();
    assert!(exp.len() >= 40);
    for (name, holds) in exp {
        let a = call(json!({"op": "run", "test": library(&name), "model": "ptx-v7.5"}));
        assert_eq!(a["ok"], true, "{name}: {a}");
        assert_eq!(a["holds"], holds, "{name}");
        assert_eq!(a["model"], "ptx-v7.5");
        let x = &a["explanation"];
        let shown = x["executions"].as_array().unwrap();
        assert!(!shown.is_empty(), "{name}: something to show");
        for e in shown {
            assert!(e["svg"].as_str().unwrap().starts_with("<svg"), "{name}");
            assert!(!e["why"].as_str().unwrap().is_empty(), "{name}");
        }
    }
}

#[test]
fn sequential_consistency_forbids_the_relaxed_outcomes() {
    // Under SC, MP's and SB's relaxed outcomes are impossible (no interleaving gives them).
    for name in ["MP+weak", "SB+rlx", "IRIW+acq"] {
        let a = call(json!({"op": "run", "test": library(name), "model": "sc"}));
        assert_eq!(a["holds"], false, "{name}");
        assert_eq!(a["model"], "sc");
    }
}

#[test]
fn a_parse_error_has_its_line_and_column() {
    let bad = "PTX bad\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\n ld.bogus r0, x ;\nexists (P0:r0 == 1)\n";
    let a = call(json!({"op": "run", "test": bad}));
    assert_eq!(a["ok"], false);
    assert_eq!(a["error"]["kind"], "parse", "{a}");
    assert_eq!(a["error"]["line"], 5, "{a}");
    assert!(a["error"]["col"].as_u64().unwrap() >= 1);
    let a = call(json!({"op": "run", "test": "PTX x\n{ x=0 \n"}));
    assert_eq!(a["error"]["kind"], "parse", "{a}");
}

#[test]
fn a_run_past_its_budget_says_so() {
    let a = call(json!({"op": "run", "test": library("IRIW+fence.sc"), "max_candidates": 3}));
    assert_eq!(a["ok"], false);
    assert_eq!(a["error"]["kind"], "budget", "{a}");
    assert!(
        a["error"]["message"]
            .as_str()
            .unwrap()
            .contains("more than 3 candidate executions"),
        "{a}"
    );
}

#[test]
fn outcomes_are_explained_one_by_one() {
    // MP+rel+acq-gpu: the stale read is forbidden, with a causality cycle; reading the flag and
    // the data is allowed.
    let t = library("MP+rel+acq-gpu");
    let a = call(json!({"op": "explain", "test": t, "outcome": "P1:r0=1 /\\ P1:r1=0"}));
    let x = &a["explanation"];
    assert_eq!(x["verdict"], "forbidden", "{a}");
    let e = &x["executions"][0];
    assert_eq!(e["kind"], "forbidden");
    assert!(e["svg"]
        .as_str()
        .unwrap()
        .contains("class=\"edge cause cycle\""));
    let a = call(json!({"op": "explain", "test": t, "outcome": "P1:r0=1 /\\ P1:r1=1"}));
    assert_eq!(a["explanation"]["verdict"], "allowed", "{a}");
    // An outcome naming an unknown register is refused.
    let a = call(json!({"op": "explain", "test": t, "outcome": "P1:r9=1"}));
    assert_eq!(a["ok"], false, "{a}");
    // An outcome that several allowed executions produce can be stepped through: each of
    // them is shown (up to 16).
    let mut stepped = 0;
    for name in [
        "2+2W+rlx",
        "IRIW+acq",
        "WRC+rlx",
        "R+rlx",
        "RMW+add-cta-diff-cta",
    ] {
        let t = library(name);
        let r = call(json!({"op": "run", "test": t}));
        for s in r["states"].as_array().unwrap() {
            let n = s["count"].as_u64().unwrap();
            if n < 2 {
                continue;
            }
            let a = call(json!({"op": "explain", "test": t, "outcome": s["outcome"]}));
            let shown = a["explanation"]["executions"].as_array().unwrap();
            assert!(
                shown.len() >= 2 && shown.len() as u64 <= n.min(16),
                "{name} {}: {n} executions, {} shown",
                s["outcome"],
                shown.len()
            );
            assert!(shown.iter().all(|e| e["kind"] == "allowed"));
            stepped += 1;
        }
    }
    assert!(
        stepped > 0,
        "no outcome with several executions among the tests tried"
    );
}

#[test]
fn the_examples_follow_the_tutorial() {
    let a = call(json!({"op": "examples"}));
    let steps = a["steps"].as_array().unwrap();
    assert_eq!(steps[0]["tests"][0]["name"], "MP+weak");
    let n: usize = steps
        .iter()
        .map(|s| s["tests"].as_array().unwrap().len())
        .sum();
    assert_eq!(n, expected().len(), "every library test is an example");
}

#[test]
fn bad_requests_are_answered() {
    for req in [
        "",
        "{",
        "[]",
        "{\"op\":\"fly\"}",
        "{\"op\":\"run\"}",
        "{\"op\":\"run\",\"test\":\"PTX a\",\"model\":\"tso\"}",
    ] {
        let a: Value = serde_json::from_str(&ptxemu_web::call(req)).unwrap();
        assert_eq!(a["ok"], false, "{req}: {a}");
    }
}
