//! `ptxemu check FILE.ptx...`: parse and validate PTX modules without running them.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

/// Arguments of `ptxemu check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The PTX modules to check.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print nothing for valid files (diagnostics only).
    #[arg(long, short)]
    pub quiet: bool,
    /// The instruction set of the files: ptx (default) or sass (SPA 5.0).
    #[arg(long, default_value = "ptx")]
    pub isa: String,
}

/// The diagnostics of one file, rendered (`file:line:col: error[rule]: …` with a caret); empty
/// when the module is valid.
pub fn check_file(path: &std::path::Path, sass: bool) -> Vec<String> {
    let name = path.display().to_string();
    let src = match crate::source::read_source(path) {
        Ok(s) => s,
        Err(e) => return vec![format!("{name}: error[unreadable]: {e}")],
    };
    if sass {
        return match emu::sass::parse_program(&src) {
            Err(e) => vec![e.render(&src, &name)],
            Ok(_) => Vec::new(),
        };
    }
    match emu::front::parse_module(&src, &name) {
        Err(e) => vec![e.render(&src)],
        Ok(m) => emu::validate::validate_module(&m)
            .iter()
            .map(|d| d.render(&src, &name))
            .collect(),
    }
}

/// Runs `ptxemu check`: exit 0 when every file is valid, 1 otherwise.
///
/// # Errors
/// None in practice: every problem with a file is a diagnostic.
pub fn run(a: &CheckArgs) -> Result<ExitCode> {
    let sass = match a.isa.as_str() {
        "ptx" => false,
        "sass" => true,
        other => anyhow::bail!("--isa `{other}`: expected ptx or sass"),
    };
    let mut bad = 0usize;
    for f in &a.files {
        let diags = check_file(f, sass);
        if diags.is_empty() {
            if !a.quiet {
                outln!("{}: ok", f.display());
            }
        } else {
            bad += 1;
            for d in diags {
                errln!("{d}");
            }
        }
    }
    if bad > 0 {
        errln!("{bad} of {} file(s) invalid", a.files.len());
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
