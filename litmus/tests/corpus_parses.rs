//! Every file of the conformance corpus parses (litmus-format spec §1).

use std::path::Path;

#[test]
fn every_corpus_file_parses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/dat3m-ptx/litmus/PTX");
    let files = litmus::litmus_files(&root).expect("the corpus beside the repository");
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
