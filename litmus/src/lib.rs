//! PTX litmus tests: the herd/Dat3M file format (and herd's GPU_PTX format), conditions, and
//! the orchestration that runs each thread through the `emu` interpreter in event mode and
//! hands the events to `models`.

#![warn(missing_docs)]

pub mod ast;
pub mod barrier;
pub mod campaign;
mod cell;
mod clock;
pub mod compare;
mod compare_keys;
pub mod cond;
pub mod diy;
pub mod draw;
pub mod explain;
pub mod explore;
pub mod gpu_ptx;
pub mod harness;
pub mod html;
pub mod lower;
pub mod outcome;
pub mod outcome_names;
pub mod parse;
pub mod print;
pub mod report;
pub mod run;
mod scope_tree;
pub mod tutorial;
pub mod unwritten;

pub use parse::{parse, ParseError};

use std::path::{Path, PathBuf};

/// The litmus files at `path`: the file itself, or every `*.litmus` file under a folder,
/// recursively, in sorted order. Symbolic links are followed, but each folder and each file is
/// visited once (by its canonical path), so a link loop ends and a file reached twice is listed
/// once. An unreadable path is returned with its error.
pub fn litmus_files(path: &Path) -> Result<Vec<PathBuf>, (PathBuf, std::io::Error)> {
    let mut walk = Walk::default();
    walk.visit(path)?;
    Ok(walk.files)
}

/// A folder walk that remembers the canonical paths it has been through.
#[derive(Default)]
struct Walk {
    files: Vec<PathBuf>,
    seen: std::collections::HashSet<PathBuf>,
}

impl Walk {
    fn visit(&mut self, p: &Path) -> Result<(), (PathBuf, std::io::Error)> {
        let fail = |e| (p.to_path_buf(), e);
        let canonical = std::fs::canonicalize(p).map_err(fail)?;
        if !self.seen.insert(canonical.clone()) {
            return Ok(());
        }
        if !std::fs::metadata(&canonical).map_err(fail)?.is_dir() {
            self.files.push(p.to_path_buf());
            return Ok(());
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
            .map_err(fail)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for e in entries {
            if e.is_dir() || e.extension().is_some_and(|x| x == "litmus") {
                self.visit(&e)?;
            }
        }
        Ok(())
    }
}
