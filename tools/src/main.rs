//! `ptxemu`: run PTX kernels, check PTX modules, and explore the PTX memory model.
//!
//! Each subcommand lives in its own module (`cmd_*.rs`); this file only declares the
//! command line and dispatches. The command-line interfaces are contracts other tools rely on:
//! extend them, never rename.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// ptxemu: an executable PTX ISA and a checkable PTX memory model.
#[derive(Parser, Debug)]
#[command(name = "ptxemu", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Placeholder until the first subcommand lands (removed then).
    #[command(hide = true)]
    Noop,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Noop => ExitCode::SUCCESS,
    }
}
