//! What `ptxemu diy` writes: one litmus file per test and `index.tsv`, a line per test with its
//! name, canonical cycle, verdict under ptx-v7.5, ptx-v6.0 and sc, and the reason under
//! ptx-v7.5; and the same index as a Markdown table for documentation.

use std::fmt::Write as _;
use std::path::Path;

use super::verdict::{judge, Judgement, MODELS};
use super::{generate, Cycle, Generated};

/// The header line of `index.tsv`.
pub fn index_header() -> String {
    let models: Vec<&str> = MODELS.iter().map(|m| m.name()).collect();
    format!("# name\tcycle\t{}\twhy (ptx-v7.5)", models.join("\t"))
}

/// The tests of `cycles`, named, with any name met twice numbered (`NAME-2`, …) so that no
/// file is written twice.
pub fn generate_all(cycles: &[Cycle]) -> Vec<Generated> {
    let mut seen = std::collections::HashMap::<String, usize>::new();
    cycles
        .iter()
        .map(|c| {
            let mut g = generate(c);
            let k = seen.entry(g.name.clone()).or_insert(0);
            *k += 1;
            if *k > 1 {
                g.name = format!("{}-{k}", g.name);
                g.test.name.clone_from(&g.name);
                g.text = crate::print::dialect(&g.test);
            }
            g
        })
        .collect()
}

/// Judges every test, spreading the work over `jobs` threads (the order is kept).
pub fn judge_all(tests: &[Generated], jobs: usize) -> Vec<Judgement> {
    let jobs = jobs.max(1).min(tests.len().max(1));
    let chunk = tests.len().div_ceil(jobs).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = tests
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|g| judge(&g.cycle, &g.test))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// One line of `index.tsv`.
pub fn index_line(g: &Generated, j: &Judgement) -> String {
    let verdicts: Vec<&str> = j.verdicts.iter().map(|v| v.word()).collect();
    format!(
        "{}\t{}\t{}\t{}",
        g.name,
        g.cycle,
        verdicts.join("\t"),
        j.why.replace(['\t', '\n'], " ")
    )
}

/// The whole `index.tsv`.
pub fn index(tests: &[Generated], judged: &[Judgement]) -> String {
    let mut s = index_header();
    s.push('\n');
    for (g, j) in tests.iter().zip(judged) {
        s.push_str(&index_line(g, j));
        s.push('\n');
    }
    s
}

/// The index as a Markdown table (name, cycle, the three verdicts, why).
pub fn markdown(tests: &[Generated], judged: &[Judgement]) -> String {
    let mut s = String::from("| test | cycle | ptx-v7.5 | ptx-v6.0 | sc | why (ptx-v7.5) |\n");
    s.push_str("|---|---|---|---|---|---|\n");
    for (g, j) in tests.iter().zip(judged) {
        let _ = writeln!(
            s,
            "| `{}` | `{}` | {} | {} | {} | {} |",
            g.name,
            g.cycle,
            j.verdicts[0].word(),
            j.verdicts[1].word(),
            j.verdicts[2].word(),
            j.why.replace('|', "\\|")
        );
    }
    s
}

/// Writes `dir/NAME.litmus` for each test and `dir/index.tsv`, creating `dir`.
///
/// # Errors
/// A file that cannot be written.
pub fn write(dir: &Path, tests: &[Generated], judged: &[Judgement]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for g in tests {
        std::fs::write(dir.join(format!("{}.litmus", g.name)), &g.text)?;
    }
    std::fs::write(dir.join("index.tsv"), index(tests, judged))
}
