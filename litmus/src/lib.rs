//! PTX litmus tests: the herd/Dat3M file format, conditions, and the orchestration that runs
//! each thread through the `emu` interpreter in event mode and hands the events to `models`.

pub mod ast;
pub mod barrier;
pub mod compare;
pub mod cond;
pub mod draw;
pub mod explain;
pub mod explore;
pub mod harness;
pub mod html;
pub mod lower;
pub mod outcome;
pub mod parse;
pub mod report;
pub mod run;

pub use parse::{parse, ParseError};

use std::path::{Path, PathBuf};

/// The litmus files at `path`: the file itself, or every `*.litmus` file under a folder,
/// recursively, in sorted order. An unreadable path is returned with its error.
pub fn litmus_files(path: &Path) -> Result<Vec<PathBuf>, (PathBuf, std::io::Error)> {
    let mut out = Vec::new();
    collect_files(path, &mut out)?;
    Ok(out)
}

fn collect_files(p: &Path, out: &mut Vec<PathBuf>) -> Result<(), (PathBuf, std::io::Error)> {
    let fail = |e| (p.to_path_buf(), e);
    if !std::fs::metadata(p).map_err(fail)?.is_dir() {
        out.push(p.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
        .map_err(fail)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for e in entries {
        if e.is_dir() || e.extension().is_some_and(|x| x == "litmus") {
            collect_files(&e, out)?;
        }
    }
    Ok(())
}
