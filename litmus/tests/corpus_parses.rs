//! Every file of the conformance corpus parses (litmus-format spec §1).

use std::path::{Path, PathBuf};

fn walk(d: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(d) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "litmus") {
            out.push(p);
        }
    }
}

#[test]
fn every_corpus_file_parses() {
    let root =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/dat3m-ptx/litmus/PTX");
    let mut files = Vec::new();
    walk(&root, &mut files);
    assert_eq!(files.len(), 748, "corpus at {}", root.display());
    let mut bad = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        if let Err(e) = litmus::parse(&src) {
            bad.push(format!("{}:{e}", f.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "{} files fail to parse:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
