//! `ptxemu diy`: PTX litmus tests generated from cycles (`docs/diy.md`).
//!
//! Contract: `ptxemu diy [--cycle CYCLE]... [--family NAME]... [--edges EDGES]
//! [--sems S,…] [--scopes S,…] [--placements P,…] [--max-threads N] [--max-edges N]
//! [--max-tests N] [--jobs N] [--out DIR] [--markdown] [--list-families]`. It writes
//! `DIR/NAME.litmus` for each test and `DIR/index.tsv` (name, cycle, verdict under ptx-v7.5,
//! ptx-v6.0 and sc, why under ptx-v7.5). `--cycle` takes a cycle or a template (`*` open);
//! `--family` a classic shape, every access open (`*`) when `--sems` is given and every
//! external edge when `--placements` is; `--edges` enumerates the critical cycles over an
//! alphabet. Exit status: 0 when the tests are written; 2 on a malformed cycle (the message
//! names its column) or bad options.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use litmus::diy::enumerate::{enumerate, expand, Choices, Enumerated};
use litmus::diy::output::{generate_all, judge_all, markdown, write};
use litmus::diy::pattern::{AnnPattern, Pick, SemKind};
use litmus::diy::syntax::{parse_patterns, WrittenPattern};
use litmus::diy::{family, verdict::Verdict};
use models::vocab::Scope;

/// Arguments of `ptxemu diy`.
#[derive(Args, Debug)]
pub struct DiyArgs {
    /// A cycle (`"PodWW Rfe PodRR Fre"`) or a template with open choices (`*`, `@*`).
    #[arg(long = "cycle", value_name = "CYCLE")]
    cycles: Vec<String>,
    /// A classic family (MP, SB, LB, S, R, 2+2W, WRC, ISA2, IRIW, RWC, WRR+2W, WRW+2W, …).
    #[arg(long = "family", value_name = "NAME")]
    families: Vec<String>,
    /// Enumerate the critical cycles over these edges (space- or comma-separated).
    #[arg(long, value_name = "EDGES")]
    edges: Option<String>,
    /// Access semantics an open access takes (w, vol, rlx, acq, rel); with --family and
    /// --edges, every access is open. Default for templates: w,rlx,acq,rel.
    #[arg(long, value_name = "S,…")]
    sems: Option<String>,
    /// Scopes of open scopes and of fences without one (cta, cluster, gpu, sys).
    #[arg(long, value_name = "S,…", default_value = "cta,gpu,sys")]
    scopes: String,
    /// Placements of open external edges (cta, cluster, gpu, sys); with --family and
    /// --edges, every external edge is open. Default for templates: cta,gpu.
    #[arg(long, value_name = "P,…")]
    placements: Option<String>,
    /// The most threads of an enumerated cycle (at most 8).
    #[arg(long, default_value_t = 4, value_name = "N")]
    max_threads: usize,
    /// The most edges of an enumerated cycle (at most 8).
    #[arg(long, default_value_t = 6, value_name = "N")]
    max_edges: usize,
    /// Refuse to make more tests than this.
    #[arg(long, default_value_t = 100_000, value_name = "N")]
    max_tests: u64,
    /// Threads judging the tests (default: every core).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Folder the tests and index.tsv are written to.
    #[arg(long, default_value = "diy", value_name = "DIR")]
    out: PathBuf,
    /// Also print the index as a Markdown table on standard output.
    #[arg(long)]
    markdown: bool,
    /// List the families and their cycles, and stop.
    #[arg(long)]
    list_families: bool,
}

fn list<T>(text: &str, what: &str, read: impl Fn(&str) -> Option<T>) -> Result<Vec<T>> {
    let mut out = Vec::new();
    for w in text.split([',', ' ']).filter(|w| !w.is_empty()) {
        out.push(read(w).ok_or_else(|| anyhow!("{what}: unknown `{w}`"))?);
    }
    if out.is_empty() {
        bail!("{what}: the list is empty");
    }
    Ok(out)
}

/// Reads a template, refusing it with the error under the text and a caret.
fn template(text: &str, what: &str) -> Result<Vec<WrittenPattern>> {
    parse_patterns(text).map_err(|e| anyhow!("{what}: {}", e.render(text)))
}

/// Runs the subcommand.
pub fn run(a: &DiyArgs) -> Result<ExitCode> {
    if a.list_families {
        for (n, c) in family::FAMILIES {
            outln!("{n:<8} {c}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    if a.cycles.is_empty() && a.families.is_empty() && a.edges.is_none() {
        bail!("give --cycle, --family or --edges (see ptxemu diy --help)");
    }
    let sems = match &a.sems {
        Some(s) => list(s, "--sems", SemKind::from_word)?,
        None => Choices::default().sems,
    };
    let scope = |w: &str| Scope::from_name(w);
    let choices = Choices {
        sems,
        scopes: list(&a.scopes, "--scopes", scope)?,
        placements: match &a.placements {
            Some(p) => list(p, "--placements", scope)?,
            None => Choices::default().placements,
        },
    };
    let (open_sems, open_places) = (a.sems.is_some(), a.placements.is_some());
    let started = Instant::now();
    let mut all = Enumerated::default();
    let mut seen = std::collections::HashSet::new();
    let mut add = |e: Enumerated, all: &mut Enumerated| {
        for c in e.cycles {
            if seen.insert(c.to_string()) {
                all.cycles.push(c);
            }
        }
        all.left_out += e.left_out;
        if all.first_reason.is_none() {
            all.first_reason = e.first_reason;
        }
    };
    for text in &a.cycles {
        let t = template(text, "--cycle")?;
        let e = expand(&t, &choices, a.max_tests).map_err(|e| match e {
            litmus::diy::enumerate::EnumerationError::Cycle(c) => {
                anyhow!("--cycle: {}", c.render(text))
            }
            other => anyhow!("--cycle: {other}"),
        })?;
        add(e, &mut all);
    }
    for name in &a.families {
        let cycle = family::cycle_of(name).ok_or_else(|| {
            anyhow!(
                "--family {name}: unknown family; the families are {}",
                family::names().join(", ")
            )
        })?;
        let mut t = template(cycle, "--family")?;
        open(&mut t, open_sems, open_places);
        let e = expand(&t, &choices, a.max_tests).map_err(|e| anyhow!("--family {name}: {e}"))?;
        add(e, &mut all);
    }
    if let Some(edges) = &a.edges {
        let alphabet: Vec<_> = template(edges, "--edges")?
            .into_iter()
            .map(|w| w.edge)
            .collect();
        if a.max_threads < 2 || a.max_edges < 2 {
            bail!("--max-threads and --max-edges must be at least 2");
        }
        // The search grows with the alphabet to the power of the length: diy7's default size
        // is 6, and 8 is already minutes for a large alphabet.
        if a.max_edges > 8 || a.max_threads > 8 {
            bail!("--max-edges and --max-threads are at most 8 (critical cycles of more are rarely wanted, and the search grows exponentially); write longer cycles with --cycle");
        }
        let e = enumerate(
            &alphabet,
            a.max_edges,
            a.max_threads,
            &choices,
            open_sems,
            open_places,
            a.max_tests,
        )
        .map_err(|e| anyhow!("--edges: {e}"))?;
        add(e, &mut all);
    }
    if all.cycles.len() as u64 > a.max_tests {
        bail!(
            "{} tests, more than --max-tests {}",
            all.cycles.len(),
            a.max_tests
        );
    }
    let tests = generate_all(&all.cycles);
    let generated = started.elapsed();
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let judged = judge_all(&tests, jobs);
    let total = started.elapsed();
    write(&a.out, &tests, &judged).with_context(|| format!("{}", a.out.display()))?;
    if a.markdown {
        outln!("{}", markdown(&tests, &judged).trim_end());
    }
    let count = |k: usize, v: &str| judged.iter().filter(|j| j.verdicts[k].word() == v).count();
    let undecided = judged
        .iter()
        .filter(|j| matches!(j.verdicts[0], Verdict::Undecided(_)))
        .count();
    let line = format!(
        "{} test(s) in {} ({} forbidden, {} allowed under ptx-v7.5{}); generated in {:.2} s, judged under 3 models in {:.2} s{}",
        tests.len(),
        a.out.display(),
        count(0, "Forbidden"),
        count(0, "Allowed"),
        if undecided > 0 {
            format!(", {undecided} undecided")
        } else {
            String::new()
        },
        generated.as_secs_f64(),
        (total - generated).as_secs_f64(),
        if all.left_out > 0 {
            format!(
                "; {} instance(s) left out (first: {})",
                all.left_out,
                all.first_reason.as_deref().unwrap_or("?")
            )
        } else {
            String::new()
        }
    );
    if a.markdown {
        eprintln!("{line}");
    } else {
        outln!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Opens every access (`*`) of a family's template when `sems`, and every external edge
/// (`@*`) when `places`.
fn open(t: &mut [WrittenPattern], sems: bool, places: bool) {
    let any = AnnPattern {
        sem: Pick::Each,
        scope: Pick::Each,
        proxy: models::vocab::Proxy::Generic,
    };
    for w in t.iter_mut() {
        if sems {
            w.edge.src = Some(any);
            w.edge.tgt = None;
        }
        if places && w.edge.kind.is_external() {
            w.edge.place = Some(Pick::Each);
        }
    }
}
