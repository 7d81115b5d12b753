//! `ptxemu litmus`: every outcome the PTX memory model allows for litmus tests, in herd7's
//! format or as JSON lines, optionally compared with a Dat3M-style expectation CSV.
//!
//! Contract: `ptxemu litmus [--model ptx-v7.5|ptx-v6.0|sc] [--json] [--expect CSV]
//! [--liveness] [--jobs N] [--max-executions N] [--timeout S] [--print-dialect] PATH...`,
//! extended with `--max-candidates N` (the budget of candidate and partial executions) and
//! `--no-symmetry` (build every execution, interchangeable threads included) and `--strict`
//! (warnings are errors). A condition reading a register that no instruction of its thread
//! writes is warned about on stderr (`FILE:LINE: …`, and `warnings` in `--json`).
//! Exit status: 0 when every test ran (and, with `--expect`, matched); 1 when some expectation
//! failed; 2 when a test could not be read or run; 3 (before 1 and 2) when a brake
//! (`--max-executions`, `--timeout`) stopped a test before its end: it gets no verdict, and the
//! message on stderr gives the counts so far. `--print-dialect` runs nothing: it writes each test
//! back in the dialect (a GPU_PTX file or a manual spelling as ptxemu reads it); 2 when a test
//! could not be read.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use litmus::report::{herd_text, json, Expectations};
use litmus::run::{run_with, Report, RunError, RunOptions};
use models::explore::Progress;

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
    /// Threads to use (default: the machine's cores): tests run at once, and a test with
    /// threads to spare splits its own exploration over them.
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Write each test in the litmus dialect instead of running it (how a GPU_PTX file or a
    /// PTX-manual spelling is read).
    #[arg(long)]
    print_dialect: bool,
    /// Stop a test, without a verdict, before it judges more than N complete executions
    /// (exit status 3).
    #[arg(long, value_name = "N")]
    max_executions: Option<u64>,
    /// Stop a test, without a verdict, once it has run S seconds (exit status 3).
    #[arg(long, value_name = "S", value_parser = crate::timeout::seconds)]
    timeout: Option<f64>,
    /// The budget of one test: the most candidate executions judged and (the explorer) partial
    /// executions built before it gives up (default 50,000,000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_candidates: Option<u64>,
    /// Build every execution: without it, the explorer builds one execution per orbit of
    /// interchangeable threads (same code and placement, each storing its own values) and
    /// derives the others. The answers are the same; this is for comparing and teaching.
    #[arg(long)]
    no_symmetry: bool,
    /// Treat warnings as errors: a test whose condition reads a register no instruction of its
    /// thread writes is not run (exit status 2).
    #[arg(long)]
    strict: bool,
    /// Litmus files or directories (searched recursively for `*.litmus`).
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
}

/// One test's result: the report, or why it could not be run (and whether a brake stopped it).
type Outcome = Result<Report, (String, bool)>;

/// One test's outcome and the warnings about it.
type Ran = (Outcome, Vec<String>);

/// Runs one test file. Warnings about the test (`FILE:LINE: what`) go to `warnings`; with
/// `strict` the first one stops the test instead, as an error.
fn run_file(
    path: &Path,
    ro: &RunOptions,
    progress: &Progress,
    strict: bool,
    warnings: &mut Vec<String>,
) -> Outcome {
    let src =
        crate::bounded::read_text(path).map_err(|e| (format!("{}: {e}", path.display()), false))?;
    let test = litmus::parse(&src).map_err(|e| (format!("{}:{e}", path.display()), false))?;
    let line = litmus::unwritten::condition_line(&src).unwrap_or(1);
    warnings.extend(
        litmus::unwritten::unwritten_registers(&test)
            .iter()
            .map(|w| format!("{}:{line}: {w}", path.display())),
    );
    if strict {
        if let Some(w) = warnings.first() {
            return Err((
                format!("{w} (an error with --strict; the test was not run)"),
                false,
            ));
        }
    }
    run_with(&test, ro, Some(progress)).map_err(|e| {
        let braked = matches!(e, RunError::Halted { .. });
        (format!("{}: {e}", path.display()), braked)
    })
}

/// Writes every test under `paths` in the dialect; 2 when one could not be read.
fn print_dialect(paths: &[PathBuf]) -> Result<ExitCode> {
    let mut errors = 0usize;
    for p in paths {
        let files = litmus::litmus_files(p)
            .map_err(|(path, e)| anyhow::anyhow!("{}: {e}", path.display()))?;
        for f in files {
            let read = crate::bounded::read_text(&f)
                .map_err(|e| format!("{}: {e}", f.display()))
                .and_then(|src| litmus::parse(&src).map_err(|e| format!("{}:{e}", f.display())))
                // Real-PTX cells are read when lowered: an unknown spelling there is reported
                // (with its line) before anything is printed.
                .and_then(|t| {
                    litmus::run::prepare(&t)
                        .map(|_| t)
                        .map_err(|e| format!("{}: {e}", f.display()))
                });
            match read {
                Ok(t) => out!("{}", litmus::print::dialect(&t)),
                Err(e) => {
                    errln!("ptxemu litmus: {e}");
                    errors += 1;
                }
            }
        }
    }
    Ok(if errors > 0 {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

/// Runs the subcommand.
pub fn run(a: &LitmusArgs) -> Result<ExitCode> {
    if a.print_dialect {
        return print_dialect(&a.paths);
    }
    let timeout = match a.timeout {
        Some(s) => Some(
            Duration::try_from_secs_f64(s).map_err(|e| anyhow::anyhow!("--timeout {s}: {e}"))?,
        ),
        None => None,
    };
    let mut ro = RunOptions {
        liveness: a.liveness,
        max_executions: a.max_executions,
        timeout,
        symmetry: !a.no_symmetry,
        ..crate::model_arg::run_options(&a.model)?
    };
    if let Some(n) = a.max_candidates {
        ro.max_candidates = n;
    }
    let mut files = crate::bounded::litmus_files_of(&a.paths)?;
    let expect = match &a.expect {
        Some(csv) => {
            let text =
                crate::bounded::read_text(csv).with_context(|| format!("{}", csv.display()))?;
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
    // Threads left over when there are fewer tests than threads split each test.
    ro.jobs = (jobs / files.len().max(1)).max(1);
    let results: Vec<Mutex<Option<Ran>>> = files.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let progress = Progress::default();
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        if crate::progress::wanted(a.json) {
            s.spawn(|| crate::progress::show(&progress, &done));
        }
        let workers: Vec<_> = (0..jobs.min(files.len().max(1)))
            .map(|_| {
                s.spawn(|| loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= files.len() {
                        break;
                    }
                    let mut warnings = Vec::new();
                    let r = run_file(&files[k], &ro, &progress, a.strict, &mut warnings);
                    if let Ok(mut slot) = results[k].lock() {
                        *slot = Some((r, warnings));
                    }
                })
            })
            .collect();
        for w in workers {
            let _ = w.join();
        }
        done.store(true, Ordering::Relaxed);
    });
    let mut errors = 0usize;
    let mut braked = 0usize;
    let (mut passed, mut failed) = (0usize, Vec::new());
    for (f, slot) in files.iter().zip(results) {
        let (r, warnings) = slot.into_inner().ok().flatten().unwrap_or_else(|| {
            (
                Err((format!("{}: not run", f.display()), false)),
                Vec::new(),
            )
        });
        let shown = f.display().to_string();
        if !(a.strict && r.is_err()) {
            for w in &warnings {
                eprintln!("ptxemu litmus: warning: {w}");
            }
        }
        match &r {
            Ok(rep) => {
                if a.json {
                    let mut o = json(rep, &shown);
                    if !warnings.is_empty() {
                        o["warnings"] = serde_json::json!(warnings);
                    }
                    outln!("{o}");
                } else {
                    out!("{}", herd_text(rep));
                    outln!();
                }
            }
            Err((e, true)) => {
                errln!("ptxemu litmus: {e}");
                braked += 1;
            }
            Err((e, false)) => {
                errln!("ptxemu litmus: {e}");
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
    }
    // A test stopped by a brake has no verdict: that outranks everything else.
    Ok(if braked > 0 {
        ExitCode::from(3)
    } else if !failed.is_empty() {
        ExitCode::from(1)
    } else if errors > 0 {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}
