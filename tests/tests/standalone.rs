//! The repository stands alone: no source, script, test or document reaches outside it for
//! the `shared` folder of team notes that sits beside a checkout, which a clone lacks.
//! Recorded tool output (`*.txt`, `*.log` under `litmus/hardware/`) may name the paths it
//! was made from; it is data, not something the tests or README read.

use std::path::{Path, PathBuf};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable folder").flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name == "target" || name == ".git" || name == "corpus" {
            continue;
        }
        let ty = entry.file_type().expect("file type");
        if ty.is_dir() {
            walk(&path, out);
        } else if ty.is_file() {
            out.push(path);
        }
    }
}

#[test]
fn nothing_reads_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    walk(&root, &mut files);
    let text_kinds = ["rs", "sh", "py", "md", "toml", "json", "cu", "c", "h"];
    // Spelt in two pieces so that this file does not name it.
    let needle = ["..", "/shared"].concat();
    let mut offenders = Vec::new();
    for f in files {
        let kind = f.extension().and_then(|e| e.to_str()).unwrap_or("");
        let is_script = f
            .parent()
            .and_then(|p| p.file_name())
            .is_some_and(|n| n == ".ci");
        if !text_kinds.contains(&kind) && !is_script {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            let mentions =
                line.contains(&format!("{needle}/")) || line.contains(&format!("{needle}\""));
            // .ci/run checks that nothing named shared/ sits beside its clone.
            if mentions && !is_script {
                offenders.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}
