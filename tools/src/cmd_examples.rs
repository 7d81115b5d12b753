//! `ptxemu examples [DIR]`: runs the bundled examples and says what each shows.
//!
//! Every folder of DIR (default `tests/fixtures/kernels`) holding a `manifest.json` and
//! compiler-generated PTX is launched in-process exactly as `ptxemu run` would, and its outputs
//! are compared with the folder's expected files. Exit status 1 if any example disagrees.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{anyhow, Context, Result};
use clap::Args;
use serde_json::Value;

use crate::argspec::{self, ArgSpec};
use emu::exec::{LaunchConfig, Machine};

/// Arguments of `ptxemu examples`.
#[derive(Args, Debug)]
pub struct ExamplesArgs {
    /// The folder of examples.
    #[arg(default_value = "tests/fixtures/kernels")]
    pub dir: PathBuf,
    /// Which compiled variant to run (nvcc-O0, nvcc-O3, clang-O0, clang-O3, or all).
    #[arg(long, default_value = "all")]
    pub variant: String,
    /// The folder of example litmus tests (with an `expected.csv` of verdicts).
    #[arg(long, default_value = "litmus/tests/library")]
    pub litmus: PathBuf,
}

/// Runs the example litmus tests under ptx-v7.5 and checks each verdict against the folder's
/// `expected.csv`. Returns (passed, failed).
fn run_litmus(dir: &Path) -> Result<(usize, usize)> {
    let csv = crate::bounded::read_text(&dir.join("expected.csv"))
        .with_context(|| format!("reading {}/expected.csv", dir.display()))?;
    let exp = litmus::report::Expectations::parse(&csv).map_err(|e| anyhow!(e))?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    files.sort();
    outln!(
        "\nRunning {} litmus tests from {} under the PTX v7.5 memory model:\n",
        files.len(),
        dir.display()
    );
    let (mut good, mut bad) = (0, 0);
    for f in &files {
        let name = f
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let want = exp
            .rows
            .iter()
            .find(|(p, _)| p.ends_with(&format!("/{name}")))
            .map(|(_, v)| *v);
        let src =
            crate::bounded::read_text(f).with_context(|| format!("reading {}", f.display()))?;
        let result = litmus::parse(&src)
            .map_err(|e| anyhow!("{}:{e}", f.display()))
            .and_then(|t| {
                litmus::run::run(&t, &litmus::run::RunOptions::default())
                    .map(|r| (t, r))
                    .map_err(|e| anyhow!("{e}"))
            });
        match result {
            Ok((t, r)) => {
                let ok = want == Some(r.holds);
                let verdict = format!(
                    "{} {}",
                    t.quantifier.name(),
                    if r.holds { "holds" } else { "fails" }
                );
                outln!(
                    "{:<7} {:<26} {:<16} {:>3} states  {}",
                    if ok { "ok" } else { "MISMATCH" },
                    t.name,
                    verdict,
                    r.states.len(),
                    t.comments.first().cloned().unwrap_or_default()
                );
                if ok {
                    good += 1;
                } else {
                    bad += 1;
                }
            }
            Err(e) => {
                outln!("ERROR   {e:#}");
                bad += 1;
            }
        }
    }
    Ok((good, bad))
}

fn shape(s: &str) -> [u32; 3] {
    let mut out = [1u32; 3];
    for (i, p) in s.split(',').take(3).enumerate() {
        out[i] = p.trim().parse().unwrap_or(1);
    }
    out
}

/// Runs one example variant; returns a one-line verdict and whether it matched.
fn run_one(dir: &Path, variant: &str, m: &Value) -> Result<(String, bool)> {
    let ptx_path = dir.join(format!("{variant}.ptx"));
    let src = crate::bounded::read_text(&ptx_path)
        .with_context(|| format!("reading {}", ptx_path.display()))?;
    let name = ptx_path.display().to_string();
    let module = emu::host::parse_checked(&src, &name).map_err(|e| anyhow!("{}", e.message))?;
    let mut mach = Machine::load_with_source(&module, &name, &src).map_err(|e| anyhow!("{e}"))?;
    let mut values = Vec::new();
    let mut bufs = Vec::new();
    for (i, a) in m["args"].as_array().into_iter().flatten().enumerate() {
        let spec = a
            .as_str()
            .unwrap_or_default()
            .replace("file=", &format!("file={}/", dir.display()));
        match argspec::parse(&spec).map_err(|e| anyhow!(e))? {
            ArgSpec::Scalar { bytes, .. } => {
                values.push(bytes);
                bufs.push(None);
            }
            ArgSpec::TensorMap(_) | ArgSpec::ByValue(_) => {
                return Err(anyhow!(
                    "argument {i}: tensor maps and structs with addresses are not used in examples"
                ))
            }
            b @ ArgSpec::Buffer { .. } => {
                let bytes = b.buffer_bytes().map_err(|e| anyhow!(e))?;
                let addr = mach
                    .alloc(bytes.len() as u64, &format!("argument {i}"))
                    .map_err(|e| anyhow!(e))?;
                mach.write(addr, &bytes);
                values.push(addr.to_le_bytes().to_vec());
                bufs.push(Some((addr, bytes.len() as u64)));
            }
        }
    }
    let kernel = m["kernel"].as_str().unwrap_or_default();
    let mut cfg = LaunchConfig::new(
        kernel,
        shape(m["grid"].as_str().unwrap_or("1")),
        shape(m["block"].as_str().unwrap_or("1")),
    );
    cfg.dynamic_shared = m["shared_bytes"].as_u64().unwrap_or(0) as u32;
    let start = Instant::now();
    let report = mach.launch(&cfg, &values).map_err(|e| anyhow!("{e}"))?;
    let took = start.elapsed();
    let mut ok = true;
    let mut notes = Vec::new();
    let expected_exit = m["exit"].as_i64().unwrap_or(0);
    match (&report.fault, expected_exit) {
        (None, 0) => {}
        (Some(f), 1) => {
            let text = f.to_string();
            for frag in m["stderr_contains"].as_array().into_iter().flatten() {
                if !text.contains(frag.as_str().unwrap_or_default()) {
                    ok = false;
                }
            }
            notes.push(format!(
                "faults as expected: {}",
                text.lines().next().unwrap_or_default()
            ));
        }
        (Some(f), _) => {
            ok = false;
            notes.push(format!("unexpected fault: {f}"));
        }
        (None, _) => {
            ok = false;
            notes.push("expected a fault, none happened".into());
        }
    }
    for d in m["dumps"].as_array().into_iter().flatten() {
        let arg = d["arg"].as_u64().unwrap_or(0) as usize;
        let want = crate::bounded::read_at_most(
            &dir.join(d["expected"].as_str().unwrap_or_default()),
            crate::bounded::MAX_TEXT_BYTES,
        )?;
        let got = bufs
            .get(arg)
            .copied()
            .flatten()
            .and_then(|(a, n)| mach.read(a, n))
            .unwrap_or_default();
        if got != want {
            ok = false;
            notes.push(format!("argument {arg} differs from the reference"));
        }
    }
    if let Some(f) = m["stdout"].as_str() {
        if crate::bounded::read_at_most(&dir.join(f), crate::bounded::MAX_TEXT_BYTES)?
            != report.stdout
        {
            ok = false;
            notes.push("printf output differs".into());
        } else {
            notes.push(format!(
                "printed {} line(s)",
                report.stdout.iter().filter(|b| **b == b'\n').count()
            ));
        }
    }
    let line = format!(
        "{:<7} {:<22} {:<9} {:>10} thread-instr {:>9.2} ms{}",
        if ok { "ok" } else { "MISMATCH" },
        dir.file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        variant,
        report.counts.thread_instructions,
        took.as_secs_f64() * 1e3,
        if notes.is_empty() {
            String::new()
        } else {
            format!("  ({})", notes.join("; "))
        }
    );
    Ok((line, ok))
}

/// Runs `ptxemu examples`.
///
/// # Errors
/// An unreadable examples folder.
pub fn run(a: &ExamplesArgs) -> Result<ExitCode> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&a.dir)
        .with_context(|| {
            format!(
                "cannot read {} (run from the repository root, or name the folder)",
                a.dir.display()
            )
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("manifest.json").exists())
        .collect();
    dirs.sort();
    const VARIANTS: [&str; 4] = ["nvcc-O0", "nvcc-O3", "clang-O0", "clang-O3"];
    let variants: Vec<&str> = if a.variant == "all" {
        VARIANTS.to_vec()
    } else if VARIANTS.contains(&a.variant.as_str()) {
        vec![a.variant.as_str()]
    } else {
        anyhow::bail!(
            "--variant `{}`: expected all, {}",
            a.variant,
            VARIANTS.join(", ")
        );
    };
    outln!(
        "Running {} example kernels from {} through the PTX interpreter,",
        dirs.len(),
        a.dir.display()
    );
    outln!("each compiled by nvcc 13 and clang-16, and comparing with independent references:\n");
    let (mut good, mut bad) = (0, 0);
    for d in &dirs {
        let m: Value = serde_json::from_str(&crate::bounded::read_text(&d.join("manifest.json"))?)?;
        for v in &variants {
            if !d.join(format!("{v}.ptx")).exists() {
                continue;
            }
            match run_one(d, v, &m) {
                Ok((line, ok)) => {
                    outln!("{line}");
                    if ok {
                        good += 1;
                    } else {
                        bad += 1;
                    }
                }
                Err(e) => {
                    outln!("ERROR   {} {v}: {e:#}", d.display());
                    bad += 1;
                }
            }
        }
    }
    if good + bad == 0 {
        anyhow::bail!(
            "no example kernel ran: {} holds no folder with a manifest.json and {} PTX",
            a.dir.display(),
            variants.join(" or ")
        );
    }
    let (lg, lb) = run_litmus(&a.litmus)?;
    if lg + lb == 0 {
        anyhow::bail!("no litmus test ran: {} holds none", a.litmus.display());
    }
    good += lg;
    bad += lb;
    outln!("\n{good} passed, {bad} failed");
    Ok(if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
