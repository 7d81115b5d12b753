//! `ptxemu litmus`: every outcome the PTX memory model allows for litmus tests, in herd7's
//! format or as JSON lines, optionally compared with a Dat3M-style expectation CSV.
//!
//! Contract: `ptxemu litmus [--model ptx-v7.5|ptx-v6.0|sc] [--json] [--expect CSV]
//! [--liveness] [--jobs N] PATH...`. Exit status: 0 when every test ran (and, with `--expect`,
//! matched); 1 when some expectation failed; 2 when a test could not be read or run.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{Context, Result};
use clap::Args;
use litmus::report::{herd_text, json, Expectations};
use litmus::run::{run as run_test, Report, RunOptions};

/// Arguments of `ptxemu litmus`.
#[derive(Args, Debug)]
pub struct LitmusArgs {
    /// The memory model: ptx-v7.5 (default), ptx-v6.0 or sc.
    #[arg(long, default_value = "ptx-v7.5")]
    model: String,
    /// One JSON object per test per line.
    #[arg(long)]
    json: bool,
    /// Compare with a CSV of `PATH,1|0` rows (1: the condition holds); paths are relative to
    /// the current directory. Only the listed tests under PATH... are run.
    #[arg(long, value_name = "CSV")]
    expect: Option<PathBuf>,
    /// Look for executions that hang (barrier deadlock, a spin that never exits) instead of
    /// judging the condition; `holds` then means "no hang".
    #[arg(long)]
    liveness: bool,
    /// Tests to run at once (default: the machine's cores).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Litmus files or directories (searched recursively for `*.litmus`).
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
}

/// One test's result: the report, or why it could not be run.
type Outcome = Result<Report, String>;

fn run_file(path: &Path, ro: &RunOptions) -> Outcome {
    let src = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let test = litmus::parse(&src).map_err(|e| format!("{}:{e}", path.display()))?;
    run_test(&test, ro).map_err(|e| format!("{}: {e}", path.display()))
}

/// Runs the subcommand.
pub fn run(a: &LitmusArgs) -> Result<ExitCode> {
    let ro = RunOptions {
        liveness: a.liveness,
        ..crate::model_arg::run_options(&a.model)?
    };
    let mut files = Vec::new();
    for p in &a.paths {
        files.extend(
            litmus::litmus_files(p)
                .map_err(|(path, e)| anyhow::anyhow!("{}: {e}", path.display()))?,
        );
    }
    let expect = match &a.expect {
        Some(csv) => {
            let text =
                std::fs::read_to_string(csv).with_context(|| format!("{}", csv.display()))?;
            Some(
                Expectations::parse(&text)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", csv.display()))?,
            )
        }
        None => None,
    };
    if let Some(e) = &expect {
        files.retain(|f| e.get(f).is_some());
    }
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let results: Vec<Mutex<Option<Outcome>>> = files.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..jobs.min(files.len().max(1)) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= files.len() {
                    break;
                }
                let r = run_file(&files[k], &ro);
                if let Ok(mut slot) = results[k].lock() {
                    *slot = Some(r);
                }
            });
        }
    });
    let mut errors = 0usize;
    let (mut passed, mut failed) = (0usize, Vec::new());
    for (f, slot) in files.iter().zip(results) {
        let r = slot
            .into_inner()
            .ok()
            .flatten()
            .unwrap_or_else(|| Err(format!("{}: not run", f.display())));
        let shown = f.display().to_string();
        match &r {
            Ok(rep) => {
                if a.json {
                    outln!("{}", json(rep, &shown));
                } else {
                    out!("{}", herd_text(rep));
                    outln!();
                }
            }
            Err(e) => {
                eprintln!("ptxemu litmus: {e}");
                errors += 1;
            }
        }
        if let Some(e) = &expect {
            let want = e.get(f).unwrap_or(false);
            match &r {
                Ok(rep) if rep.holds == want => passed += 1,
                Ok(rep) => failed.push(format!(
                    "{shown}: expected {}, got {}",
                    u8::from(want),
                    u8::from(rep.holds)
                )),
                Err(_) => failed.push(format!(
                    "{shown}: expected {}, but the test could not be run",
                    u8::from(want)
                )),
            }
        }
    }
    if let Some(e) = &expect {
        // Listed tests that are not under the given paths count as failures: nothing is
        // silently skipped.
        for (p, v) in &e.rows {
            let path = Path::new(p);
            if !files
                .iter()
                .any(|f| litmus::report::normalise(f) == litmus::report::normalise(path))
            {
                failed.push(format!(
                    "{p}: expected {}, but no such test was found under the given paths",
                    u8::from(*v)
                ));
            }
        }
        for f in &failed {
            outln!("FAILED {f}");
        }
        outln!("{passed} passed, {} failed", failed.len());
        if !failed.is_empty() {
            return Ok(ExitCode::from(1));
        }
    }
    Ok(if errors > 0 {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}
