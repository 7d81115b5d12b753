//! Reading input files in bounded memory (`emu::host::read`, shared with the Python package),
//! and finding the litmus files a command is given.

pub use emu::host::read::{read_at_most, read_exactly, read_text, MAX_TEXT_BYTES};

/// Every litmus file under `paths` (files as given, folders searched recursively).
///
/// # Errors
/// A path cannot be read, or there is no litmus file at all: a run that checks nothing must
/// not look like one that passed.
pub fn litmus_files_of(paths: &[std::path::PathBuf]) -> anyhow::Result<Vec<std::path::PathBuf>> {
    let mut files = Vec::new();
    for p in paths {
        files.extend(
            litmus::litmus_files(p)
                .map_err(|(path, e)| anyhow::anyhow!("{}: {e}", path.display()))?,
        );
    }
    if files.is_empty() {
        let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        anyhow::bail!(
            "no `*.litmus` file under {}: nothing to check",
            shown.join(", ")
        );
    }
    Ok(files)
}
