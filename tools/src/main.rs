//! `ptxemu`: run PTX kernels, check PTX modules, and explore the PTX memory model.
//!
//! Each subcommand lives in its own module (`cmd_*.rs`); this file only declares the
//! command line and dispatches. The command-line interfaces are contracts other tools rely on:
//! extend them, never rename.

#![warn(missing_docs)]

#[macro_use]
mod out;

mod argfloat16;
mod argspec;
mod argtype;
mod bounded;
mod cmd_campaign;
mod cmd_check;
mod cmd_compare;
mod cmd_diy;
mod cmd_examples;
mod cmd_explain;
mod cmd_harness;
mod cmd_litmus;
mod cmd_run;
mod cmd_run_sass;
mod confine;
mod cpu_features;
mod difftest;
mod launch;
mod memlimit;
mod model_arg;
mod plan;
mod progress;
mod race_run;
mod source;
mod timeout;
mod tmap_arg;
mod tmap_arg_driver;
mod tmem_trace;
mod triton_meta;

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
    /// Run a kernel of a PTX module on buffers and scalars given on the command line.
    Run(Box<cmd_run::RunArgs>),
    /// Parse and validate PTX modules (exit 0: all valid; 1: diagnostics).
    Check(cmd_check::CheckArgs),
    /// Run the bundled example kernels and check them against their references.
    Examples(cmd_examples::ExamplesArgs),
    /// List every outcome the PTX memory model allows for litmus tests (herd7 format).
    Litmus(cmd_litmus::LitmusArgs),
    /// Explain why an outcome of a litmus test is allowed or forbidden, in words and pictures.
    Explain(cmd_explain::ExplainArgs),
    /// Write litmus tests as CUDA programs that run them on a real GPU (litmus7 logs, JSON histograms).
    Harness(cmd_harness::HarnessArgs),
    /// Compare hardware histograms (litmus7 logs, harness JSON) with the model's allowed outcomes.
    Compare(cmd_compare::CompareArgs),
    /// Generate PTX litmus tests from cycles of relations (diy7's), judged under every model.
    Diy(cmd_diy::DiyArgs),
    /// Run random PTX kernels on a GPU and on ptxemu and compare the results bit for bit.
    Difftest(difftest::DifftestArgs),
    /// The emulator-backed stand-in for difftest's GPU host program (no GPU needed).
    #[command(hide = true)]
    DifftestHost(difftest::HostArgs),
}

fn main() -> ExitCode {
    let missing = cpu_features::missing();
    if !missing.is_empty() {
        errln!(
            "ptxemu: this build uses CPU features this CPU lacks ({}); rebuild it with \
             RUSTFLAGS=\"-C target-cpu=native\" (see .cargo/config.toml)",
            missing.join(", ")
        );
        out::flush();
        return ExitCode::from(2);
    }
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Run(a) => cmd_run::run(a),
        Command::Check(a) => cmd_check::run(a),
        Command::Examples(a) => cmd_examples::run(a),
        Command::Litmus(a) => cmd_litmus::run(a),
        Command::Explain(a) => cmd_explain::run(a),
        Command::Harness(a) => cmd_harness::run(a),
        Command::Compare(a) => cmd_compare::run(a),
        Command::Diy(a) => cmd_diy::run(a),
        Command::Difftest(a) => difftest::run(a),
        Command::DifftestHost(a) => difftest::run_host(a),
    };
    let code = match result {
        Ok(code) => code,
        Err(e) => {
            errln!("ptxemu: {e:#}");
            ExitCode::from(2)
        }
    };
    out::flush();
    code
}
