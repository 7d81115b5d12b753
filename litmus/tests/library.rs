//! ptxemu's own litmus library (`litmus/tests/library/`): the classic shapes across scopes,
//! placements and fences. Each test carries a one-line explanation; `expected.csv` holds the
//! verdicts worked out by hand, and `NAME.expected` the full output under every model
//! (regenerate with `UPDATE_GOLDEN=1 cargo test -p litmus --test library`).

use std::path::{Path, PathBuf};

use litmus::report::{herd_text, Expectations};
use litmus::run::{run, RunOptions};
use models::ptx::Model;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/library")
}

fn files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    v.sort();
    v
}

/// herd7 text under each model, without the timing line.
fn output(path: &Path) -> String {
    let test = litmus::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out = String::new();
    for model in [Model::PtxV75, Model::PtxV60, Model::Sc] {
        let r = run(
            &test,
            &RunOptions {
                model,
                ..RunOptions::default()
            },
        )
        .unwrap();
        out.push_str(&format!("== {}\n", model.name()));
        for line in herd_text(&r).lines().filter(|l| !l.starts_with("Time ")) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[test]
fn outputs_match_goldens() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut bad = Vec::new();
    for f in files() {
        let got = output(&f);
        let golden = f.with_extension("expected");
        if update {
            std::fs::write(&golden, &got).unwrap();
            continue;
        }
        match std::fs::read_to_string(&golden) {
            Ok(want) if want == got => {}
            Ok(want) => bad.push(format!(
                "{}:\n--- golden\n{want}\n--- now\n{got}",
                f.display()
            )),
            Err(_) => bad.push(format!("{}: no golden output", f.display())),
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn verdicts_match_the_hand_worked_expectations() {
    let exp =
        Expectations::parse(&std::fs::read_to_string(dir().join("expected.csv")).unwrap()).unwrap();
    let files = files();
    assert_eq!(
        exp.rows.len(),
        files.len(),
        "every library test has a hand-worked verdict"
    );
    for f in &files {
        let rel = Path::new("litmus/tests/library").join(f.file_name().unwrap());
        let want = exp
            .get(&rel)
            .unwrap_or_else(|| panic!("{} is not in expected.csv", rel.display()));
        let test = litmus::parse(&std::fs::read_to_string(f).unwrap()).unwrap();
        let r = run(&test, &RunOptions::default()).unwrap();
        assert_eq!(r.holds, want, "{}", f.display());
    }
}

#[test]
fn every_shape_is_covered_and_explained() {
    let files = files();
    for shape in [
        "MP", "SB", "LB", "IRIW", "WRC", "ISA2", "2+2W", "R", "S", "CoRR", "CoWR", "RMW",
    ] {
        assert!(
            files.iter().any(|f| f
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .starts_with(&format!("{shape}+"))),
            "no {shape} test"
        );
    }
    for f in &files {
        let test = litmus::parse(&std::fs::read_to_string(f).unwrap()).unwrap();
        assert!(
            test.comments
                .first()
                .is_some_and(|c| !c.is_empty() && !c.contains('\n')),
            "{}: one-line explanation",
            f.display()
        );
    }
}

#[test]
fn every_test_is_in_exactly_one_tutorial_step() {
    // The tutorial's path (litmus::tutorial) names each library test once, and its compiled-in
    // text is the file's.
    let mut named: Vec<&str> = litmus::tutorial::STEPS
        .iter()
        .flat_map(|s| s.tests.iter().map(|t| t.name))
        .collect();
    let n = named.len();
    named.sort_unstable();
    named.dedup();
    assert_eq!(named.len(), n, "a test named by two steps");
    let files: Vec<String> = files()
        .iter()
        .map(|f| f.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(named, sorted.iter().map(String::as_str).collect::<Vec<_>>());
    for step in litmus::tutorial::STEPS {
        for t in step.tests {
            let text = std::fs::read_to_string(dir().join(format!("{}.litmus", t.name))).unwrap();
            assert_eq!(t.source, text, "{}", t.name);
        }
    }
    assert_eq!(
        litmus::tutorial::STEPS[0].tests[0].name,
        "MP+weak",
        "MP first"
    );
}
