//! `ptxemu explain`: why an outcome of a litmus test is allowed or forbidden, in words and
//! pictures.
//!
//! Contract: `ptxemu explain TEST.litmus [--model M] [--outcome 'P1:r0=1 /\ P1:r1=0']
//! [--format text|dot|svg|html|md] [-o PATH]`. TEST may be a folder for `html` (one page per
//! test and an index) and `md` (the tutorial: an index, a page per step, pictures). Exit status 0
//! when explained, 2 on bad input.
//!
//! `ptxemu explain --race-report FILE|- [--format text|dot|svg|html] [-o PATH]`: the races of
//! a `ptxemu run --race --json` report (or of its `races` array), the two accesses and the
//! missing causality edge (`litmus::explain::race`). Without FILE, or with `-`, it reads stdin.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, ValueEnum};
use litmus::explain::{explain, Explanation};
use litmus::html::{index, page};
use litmus::run::RunOptions;

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The explanation in words.
    Text,
    /// The execution as a Graphviz graph.
    Dot,
    /// The execution as an SVG picture.
    Svg,
    /// A self-contained HTML page (a folder of pages for a folder of tests).
    Html,
    /// A Markdown tutorial with SVG pictures (for a folder of tests).
    Md,
}

/// Arguments of `ptxemu explain`.
#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// The litmus test (or, for html and md, a folder of tests).
    #[arg(value_name = "TEST", required_unless_present = "race_report")]
    test: Option<PathBuf>,
    /// Explain the races of a `run --race --json` report instead (FILE, or `-` / nothing for
    /// standard input).
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-", conflicts_with_all = ["test", "outcome"])]
    race_report: Option<String>,
    /// The memory model: ptx-v7.5 (default), ptx-v6.0 or sc.
    #[arg(long, default_value = "ptx-v7.5")]
    model: String,
    /// The outcome to explain (default: the test's condition), e.g. 'P1:r0=1 /\ P1:r1=0'.
    #[arg(long)]
    outcome: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Where to write (a file; a folder for a folder of tests). Default: standard output.
    #[arg(short = 'o', value_name = "PATH")]
    output: Option<PathBuf>,
    /// Stop a test, without an explanation, once it has run S seconds (exit status 3), as
    /// `litmus --timeout` does.
    #[arg(long, value_name = "S", value_parser = crate::timeout::seconds)]
    timeout: Option<f64>,
    /// The budget of candidate and partial executions, as `litmus --max-candidates` sets it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_candidates: Option<u64>,
}

fn load(path: &Path, ro: &RunOptions, outcome: Option<&str>) -> Result<(Explanation, String)> {
    let src = crate::bounded::read_text(path).with_context(|| format!("{}", path.display()))?;
    let test = litmus::parse(&src).map_err(|e| anyhow!("{}:{e}", path.display()))?;
    let line = litmus::unwritten::condition_line(&src).unwrap_or(1);
    for w in litmus::unwritten::unwritten_registers(&test) {
        eprintln!("ptxemu explain: warning: {}:{line}: {w}", path.display());
    }
    let out = match outcome {
        Some(o) => Some(
            litmus::cond::parse_condition(o)
                .map_err(|e| anyhow!("--outcome: column {}: {}", e.col, e.message))?,
        ),
        None => None,
    };
    if let Some(o) = &out {
        litmus::outcome_names::check_outcome(&test, o)
            .map_err(|e| anyhow!("--outcome: {e} in {}", path.display()))?;
    }
    let x = explain(&test, ro, out).map_err(|e| {
        let halted = matches!(e, litmus::run::RunError::Halted { .. });
        let e = anyhow!("{}: {e}", path.display());
        if halted {
            e.context(Stopped)
        } else {
            e
        }
    })?;
    Ok((x, src))
}

fn emit(out: &Option<PathBuf>, text: &str) -> Result<()> {
    match out {
        Some(p) => std::fs::write(p, text).with_context(|| format!("{}", p.display())),
        None => {
            out!("{text}");
            Ok(())
        }
    }
}

/// The page of test `f` found under `dir`: its path below `dir`, folders joined by `-`.
fn page_name(dir: &Path, f: &Path) -> String {
    let rel = f.strip_prefix(dir).unwrap_or(f).with_extension("");
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    format!("{}.html", parts.join("-"))
}

fn tests_in(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("{}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    v.sort();
    if v.is_empty() {
        bail!(
            "no `*.litmus` file in {}: nothing to explain",
            dir.display()
        );
    }
    Ok(v)
}

/// Explains a race report (`--race-report`).
fn race_report(from: &str, a: &ExplainArgs) -> Result<ExitCode> {
    use litmus::explain::race::{draw, parse_report};
    // Standard input is read through /dev/stdin so that it gets the same size bound as files.
    let (path, name) = if from == "-" {
        ("/dev/stdin", "<stdin>")
    } else {
        (from, from)
    };
    let text =
        crate::bounded::read_text(std::path::Path::new(path)).with_context(|| name.to_string())?;
    let report = parse_report(&text).map_err(|e| anyhow!("{name}: {e}"))?;
    let title = report.title(name);
    let none = || anyhow!("{name}: the report has no race: nothing to draw");
    match a.format {
        Format::Text => emit(&a.output, &report.text())?,
        Format::Svg => emit(&a.output, &draw::svg(&report, &title).ok_or_else(none)?)?,
        Format::Dot => emit(&a.output, &draw::dot(&report, &title).ok_or_else(none)?)?,
        Format::Html => emit(&a.output, &draw::page(&report, &title))?,
        Format::Md => bail!("--race-report is explained as text, dot, svg or html"),
    }
    Ok(ExitCode::SUCCESS)
}

/// Marks an error as a `--timeout` stop (exit status 3, as `litmus` gives).
#[derive(Debug)]
struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stopped")
    }
}

/// Runs the subcommand: exit status 0 when explained, 3 when `--timeout` stopped a test, 2 on
/// bad input.
pub fn run(a: &ExplainArgs) -> Result<ExitCode> {
    if let Some(from) = &a.race_report {
        return race_report(from, a);
    }
    match explain_all(a) {
        Err(e) if e.is::<Stopped>() => {
            errln!("ptxemu explain: {}", e.root_cause());
            Ok(ExitCode::from(3))
        }
        r => r,
    }
}

fn explain_all(a: &ExplainArgs) -> Result<ExitCode> {
    let Some(test) = &a.test else {
        bail!("name a litmus test, or --race-report FILE")
    };
    let mut ro = crate::model_arg::run_options(&a.model)?;
    if let Some(n) = a.max_candidates {
        ro.max_candidates = n;
    }
    if let Some(s) = a.timeout {
        ro.timeout = Some(
            std::time::Duration::try_from_secs_f64(s).map_err(|e| anyhow!("--timeout {s}: {e}"))?,
        );
    }
    if test.is_dir() {
        let Some(out) = &a.output else {
            bail!("a folder of tests needs -o DIR")
        };
        std::fs::create_dir_all(out).with_context(|| format!("{}", out.display()))?;
        match a.format {
            Format::Html => {
                // The folder is searched recursively, as `litmus` searches it; a test in a
                // subfolder gets the page `SUB-NAME.html`.
                let files = crate::bounded::litmus_files_of(std::slice::from_ref(test))?;
                let mut entries = Vec::new();
                for f in &files {
                    let (x, src) = load(f, &ro, a.outcome.as_deref())?;
                    let name = page_name(test, f);
                    std::fs::write(out.join(&name), page(&x, &src))?;
                    let r = &x.report;
                    entries.push((x.prepared.test.name.clone(), name, format!("{} {}: {}", r.quantifier.name(), r.condition, if r.holds { "holds" } else { "does not hold" })));
                }
                std::fs::write(out.join("index.html"), index(&entries))?;
                outln!("wrote {} pages and {}", files.len(), out.join("index.html").display());
            }
            Format::Md => {
                // The tutorial's path (litmus::tutorial): the steps' tests found in the folder,
                // in the steps' order, then the folder's other tests.
                let mut tests = Vec::new();
                for f in tests_in(test)? {
                    let src = crate::bounded::read_text(&f).with_context(|| format!("{}", f.display()))?;
                    let stem = f.file_stem().unwrap_or_default().to_string_lossy().into_owned();
                    tests.push((stem, src));
                }
                let pages = litmus::tutorial::pages::pages(&tests, &ro)?;
                for p in &pages {
                    let path = out.join(&p.path);
                    if let Some(dir) = path.parent() {
                        std::fs::create_dir_all(dir).with_context(|| format!("{}", dir.display()))?;
                    }
                    std::fs::write(&path, &p.text).with_context(|| format!("{}", path.display()))?;
                }
                outln!("wrote {} files of the tutorial under {}", pages.len(), out.display());
            }
            _ => bail!("a folder of tests can be explained as html or md; name one test for text, dot or svg"),
        }
        return Ok(ExitCode::SUCCESS);
    }
    let (x, src) = load(test, &ro, a.outcome.as_deref())?;
    match a.format {
        Format::Text => emit(&a.output, &x.text())?,
        Format::Html => emit(&a.output, &page(&x, &src))?,
        Format::Svg | Format::Dot => {
            let w = x.pictured().ok_or_else(|| {
                anyhow!(
                    "no candidate execution produces {}: nothing to draw",
                    x.outcome
                )
            })?;
            let title = format!("{}: {}", x.prepared.test.name, x.outcome);
            let pic = if a.format == Format::Svg {
                litmus::draw::svg(&x, w, &title)
            } else {
                litmus::draw::dot(&x, w, &title)
            };
            emit(&a.output, &pic)?;
        }
        Format::Md => {
            // One test's section of the tutorial (its condition under ptx-v7.5 and sc).
            let stem = test.file_stem().unwrap_or_default().to_string_lossy();
            let (section, _) = litmus::tutorial::pages::test_section(&stem, &src, &ro)?;
            emit(&a.output, &section)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
