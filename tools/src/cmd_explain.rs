//! `ptxemu explain`: why an outcome of a litmus test is allowed or forbidden, in words and
//! pictures.
//!
//! Contract: `ptxemu explain TEST.litmus [--model M] [--outcome 'P1:r0=1 /\ P1:r1=0']
//! [--format text|dot|svg|html|md] [-o PATH]`. TEST may be a folder for `html` (one page per
//! test and an index) and `md` (the tutorial: a README.md and its pictures). Exit status 0
//! when explained, 2 on bad input.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, ValueEnum};
use litmus::explain::{explain, Explanation};
use litmus::html::{index, page, pictures, tutorial_section};
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
    #[arg(value_name = "TEST")]
    test: PathBuf,
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
    #[arg(long, value_name = "S")]
    timeout: Option<f64>,
}

fn load(path: &Path, ro: &RunOptions, outcome: Option<&str>) -> Result<(Explanation, String)> {
    let src = crate::bounded::read_text(path).with_context(|| format!("{}", path.display()))?;
    let test = litmus::parse(&src).map_err(|e| anyhow!("{}:{e}", path.display()))?;
    let out = match outcome {
        Some(o) => Some(
            litmus::cond::parse_condition(o)
                .map_err(|e| anyhow!("--outcome: column {}: {}", e.col, e.message))?,
        ),
        None => None,
    };
    if let Some(o) = &out {
        check_outcome(&test, o).map_err(|e| anyhow!("--outcome: {e} in {}", path.display()))?;
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

/// Refuses an outcome naming a thread, register or location the test does not have (an
/// explanation of a misspelt name would be a verdict about nothing).
fn check_outcome(test: &litmus::ast::Test, outcome: &litmus::ast::Expr) -> Result<(), String> {
    use litmus::ast::Term;
    let prep = litmus::run::prepare(test).map_err(|e| e.to_string())?;
    for t in outcome.terms() {
        match &t {
            Term::Reg(th, r) => {
                let Some(thread) = prep.threads.get(*th as usize) else {
                    return Err(format!(
                        "P{th}:{r} names thread P{th}, but the test has {} thread(s)",
                        prep.threads.len()
                    ));
                };
                if thread.regs.get(r).is_none() {
                    return Err(format!(
                        "P{th}:{r}: thread P{th} has no register `{r}` (its registers: {})",
                        list(&thread.regs.names)
                    ));
                }
            }
            Term::Loc(l) => {
                if !prep.locs.names.contains(l) {
                    return Err(format!(
                        "the test has no location `{l}` (locations: {})",
                        list(&prep.locs.names)
                    ));
                }
            }
            Term::Const(_) => {}
        }
    }
    Ok(())
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
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
    match explain_all(a) {
        Err(e) if e.is::<Stopped>() => {
            eprintln!("ptxemu explain: {}", e.root_cause());
            Ok(ExitCode::from(3))
        }
        r => r,
    }
}

fn explain_all(a: &ExplainArgs) -> Result<ExitCode> {
    let mut ro = crate::model_arg::run_options(&a.model)?;
    if let Some(s) = a.timeout {
        ro.timeout = Some(
            std::time::Duration::try_from_secs_f64(s).map_err(|e| anyhow!("--timeout {s}: {e}"))?,
        );
    }
    if a.test.is_dir() {
        let Some(out) = &a.output else {
            bail!("a folder of tests needs -o DIR")
        };
        std::fs::create_dir_all(out).with_context(|| format!("{}", out.display()))?;
        match a.format {
            Format::Html => {
                // The folder is searched recursively, as `litmus` searches it; a test in a
                // subfolder gets the page `SUB-NAME.html`.
                let files = crate::bounded::litmus_files_of(std::slice::from_ref(&a.test))?;
                let mut entries = Vec::new();
                for f in &files {
                    let (x, src) = load(f, &ro, a.outcome.as_deref())?;
                    let name = page_name(&a.test, f);
                    std::fs::write(out.join(&name), page(&x, &src))?;
                    let r = &x.report;
                    entries.push((x.prepared.test.name.clone(), name, format!("{} {}: {}", r.quantifier.name(), r.condition, if r.holds { "holds" } else { "does not hold" })));
                }
                std::fs::write(out.join("index.html"), index(&entries))?;
                outln!("wrote {} pages and {}", files.len(), out.join("index.html").display());
            }
            Format::Md => {
                let files = tests_in(&a.test)?;
                let img = out.join("img");
                std::fs::create_dir_all(&img)?;
                let mut md = String::from(
                    "# The PTX memory model by example\n\n\
                     Generated by `ptxemu explain --format md -o docs/tutorial litmus/tests/library` from ptxemu's litmus library; \
                     do not edit by hand (a test fails when this file is out of date).\n\n\
                     Each section shows a classic litmus shape in one variant (scope, placement, fences), whether the outcome in \
                     its condition is allowed under the PTX v7.5 and v6.0 models and under sequential consistency, a picture of \
                     the execution that produces it (or of a candidate that would, with the violated axiom's cycle in red), and \
                     the explanation in words.\n\n",
                );
                let mut shape = String::new();
                for f in &files {
                    let (x, src) = load(f, &ro, a.outcome.as_deref())?;
                    let stem = f.file_stem().unwrap_or_default().to_string_lossy().into_owned();
                    let shapes = ["2+2W", "IRIW", "ISA2", "CoRR", "CoWR", "RMW", "WRC", "MP", "SB", "LB", "R", "S"];
                    let this_shape = shapes
                        .iter()
                        .find(|s| stem.starts_with(&format!("{s}+")))
                        .map_or_else(|| stem.split('+').next().unwrap_or("").to_string(), |s| s.to_string());
                    if this_shape != shape {
                        md.push_str(&format!("## {this_shape}\n\n"));
                        shape = this_shape;
                    }
                    let pics = pictures(&x);
                    let rel = pics.first().map(|(_, svg)| {
                        let name = format!("{stem}.svg");
                        let _ = std::fs::write(img.join(&name), svg);
                        format!("img/{name}")
                    });
                    md.push_str(&tutorial_section(&x, &src, rel.as_deref()));
                }
                std::fs::write(out.join("README.md"), md)?;
                outln!("wrote {}", out.join("README.md").display());
            }
            _ => bail!("a folder of tests can be explained as html or md; name one test for text, dot or svg"),
        }
        return Ok(ExitCode::SUCCESS);
    }
    let (x, src) = load(&a.test, &ro, a.outcome.as_deref())?;
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
        Format::Md => emit(&a.output, &tutorial_section(&x, &src, None))?,
    }
    Ok(ExitCode::SUCCESS)
}
