//! The `--model` option shared by the memory-model subcommands.

use anyhow::{bail, Result};
use litmus::run::RunOptions;
use models::ptx::Model;

/// The run options for a `--model` name (`ptx-v7.5`, `ptx-v6.0` or `sc`), other options at
/// their defaults.
pub fn run_options(name: &str) -> Result<RunOptions> {
    let Some(model) = Model::from_name(name) else {
        bail!("unknown model `{name}` (expected ptx-v7.5, ptx-v6.0 or sc)");
    };
    Ok(RunOptions {
        model,
        ..RunOptions::default()
    })
}
