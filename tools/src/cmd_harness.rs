//! `ptxemu harness`: litmus tests as self-contained CUDA programs that run them on a real GPU
//! and print litmus7-format logs plus JSON histograms.
//!
//! Contract: `ptxemu harness [--out DIR] [--instances N] [--iterations N] [--stress CTAS]
//! [--stress-rounds N] [--stride WORDS] [--spin N] [--seed S] [--arch SM] [--shard K/N]
//! TEST.litmus...`. With `--shard K/N`, only the tests whose name hashes to shard K are
//! written (1 + FNV-1a of the name modulo N), named as the whole run would name them.
//! For each test named NAME it writes `DIR/NAME.cu` and a copy `DIR/NAME.litmus` (so that
//! `ptxemu compare` finds the test beside the log), and once `DIR/build.sh` (nvcc, one line per
//! test) and `DIR/run.sh` (runs each program, writing `NAME.log` and `NAME.json`). Exit
//! status: 0 when every test became a harness; 1 when some were refused (the reason is printed,
//! the others are written); 2 on unreadable input or bad options.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::Args;
use litmus::harness::{build_line, generate, HarnessError, HarnessOptions};

/// Arguments of `ptxemu harness`.
#[derive(Args, Debug)]
pub struct HarnessArgs {
    /// Folder the programs and scripts are written to.
    #[arg(long, default_value = "harness", value_name = "DIR")]
    out: PathBuf,
    /// Instances of the test per launch (a power of two, at least 32).
    #[arg(long, default_value_t = 4096, value_name = "N")]
    instances: u32,
    /// Launches per run.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    iterations: u32,
    /// Stressing CTAs launched beside the testing ones, hammering a scratch buffer (0: none).
    #[arg(long, default_value_t = 0, value_name = "CTAS")]
    stress: u32,
    /// Loads and stores per stressing thread per launch.
    #[arg(long, default_value_t = 256, value_name = "N")]
    stress_rounds: u32,
    /// Distance between neighbouring instances' copies of a location, in 64-bit words.
    #[arg(long, default_value_t = 8, value_name = "WORDS")]
    stride: u32,
    /// Rounds a thread spins at most waiting for its partners before running the test.
    #[arg(long, default_value_t = 4096, value_name = "N")]
    spin: u32,
    /// Seed of the per-launch permutations of threads and locations.
    #[arg(long, default_value_t = 1, value_name = "S")]
    seed: u64,
    /// The GPU architecture of the nvcc build lines.
    #[arg(long, default_value = "sm_90", value_name = "SM")]
    arch: String,
    /// Write only shard K of N (1 ≤ K ≤ N): the tests whose name hashes to K (1 + FNV-1a of
    /// the name, modulo N), named as the whole run names them, so that N machines (a job
    /// array) share one campaign and a test stays in its shard when others are added.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    shard: Option<Shard>,
    /// Litmus files or directories (searched recursively for `*.litmus`).
    #[arg(required = true, value_name = "TEST")]
    paths: Vec<PathBuf>,
}

/// One shard of a campaign: the `index`-th (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    index: usize,
    count: usize,
}

impl Shard {
    /// Whether the test named `name` is in this shard.
    fn holds(self, name: &str) -> bool {
        // FNV-1a, 64 bits: fixed by its definition, so every machine splits alike.
        let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
        hash % self.count as u64 == (self.index - 1) as u64
    }
}

/// Reads `K/N` with 1 ≤ K ≤ N.
fn parse_shard(s: &str) -> Result<Shard, String> {
    let bad = || format!("`{s}`: a shard is K/N with 1 <= K <= N (e.g. 3/8)");
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let (index, count): (usize, usize) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if index == 0 || count == 0 || index > count {
        return Err(bad());
    }
    Ok(Shard { index, count })
}

/// Whether `name` can be used as a file name as it is.
fn safe_file_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-_.=@,".contains(c))
}

/// The name a test's harness gets: its own name, or, when another test of the run has it
/// already, its file's stem prefixed with its folder's (`CADP/2_threads_3_instructions/0_simple`
/// → `2_threads_3_instructions-0_simple`), then numbered. `None` when the name is unusable.
fn unique_name(name: &str, file: &Path, taken: &BTreeSet<String>) -> Option<String> {
    if !safe_file_name(name) {
        return None;
    }
    if !taken.contains(name) {
        return Some(name.to_string());
    }
    let folder = file
        .parent()
        .and_then(|d| d.file_name())
        .map(|d| d.to_string_lossy().into_owned())
        .filter(|d| safe_file_name(d));
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| safe_file_name(s))
        .unwrap_or_else(|| name.to_string());
    let base = match folder {
        Some(d) => format!("{d}-{stem}"),
        None => stem,
    };
    (0..)
        .map(|k| {
            if k == 0 {
                base.clone()
            } else {
                format!("{base}-{k}")
            }
        })
        .find(|n| !taken.contains(n))
}

/// Runs the subcommand.
pub fn run(a: &HarnessArgs) -> Result<ExitCode> {
    let opts = HarnessOptions {
        instances: a.instances,
        iterations: a.iterations,
        stress: a.stress,
        stress_rounds: a.stress_rounds,
        stride: a.stride,
        spin: a.spin,
        seed: a.seed,
        arch: a.arch.clone(),
    };
    // The value is written into build.sh: only a known target name (or `native`) is taken.
    if a.arch != "native" && !emu::validate::is_known_arch_name(&a.arch) {
        bail!(
            "--arch {:?}: expected a known target such as sm_90, sm_90a, compute_80 or native",
            a.arch
        );
    }
    let files = crate::bounded::litmus_files_of(&a.paths)?;
    std::fs::create_dir_all(&a.out).with_context(|| format!("{}", a.out.display()))?;
    // Names are given over the whole list, shard or not, so the shards of one campaign never
    // name two tests alike and together write what one unsharded run writes.
    let mut taken: BTreeSet<String> = BTreeSet::new();
    let mut written: BTreeSet<String> = BTreeSet::new();
    let mut refused = 0usize;
    let mut in_shard = 0usize;
    for f in &files {
        let src = crate::bounded::read_text(f).with_context(|| format!("{}", f.display()))?;
        let test = litmus::parse(&src).map_err(|e| anyhow::anyhow!("{}:{e}", f.display()))?;
        let name = unique_name(&test.name, f, &taken);
        let mine = a
            .shard
            .is_none_or(|s| s.holds(name.as_deref().unwrap_or(&test.name)));
        in_shard += usize::from(mine);
        let Some(name) = name else {
            if mine {
                errln!(
                    "ptxemu harness: refused {}: test name `{}` is not usable as a file name",
                    f.display(),
                    test.name
                );
                refused += 1;
            }
            continue;
        };
        let mut test = test;
        test.name = name.clone();
        match generate(&test, &format!("{name}.litmus"), &opts) {
            Ok(_) if !mine => {
                taken.insert(name);
            }
            Err(HarnessError::Options(e)) => bail!("{e}"),
            Err(_) if !mine => {}
            Ok(h) => {
                let cu = a.out.join(format!("{name}.cu"));
                std::fs::write(&cu, &h.source).with_context(|| format!("{}", cu.display()))?;
                let copy = a.out.join(format!("{name}.litmus"));
                std::fs::write(&copy, &src).with_context(|| format!("{}", copy.display()))?;
                outln!("{}: {}", cu.display(), h.build_line);
                taken.insert(name.clone());
                written.insert(name);
            }
            Err(e) => {
                errln!("ptxemu harness: refused {}: {e}", f.display());
                refused += 1;
            }
        }
    }
    write_scripts(a, &written)?;
    outln!(
        "{} harness(es) in {}{}, {refused} test(s) refused; build with {}/build.sh, run with {}/run.sh",
        written.len(),
        a.out.display(),
        a.shard.map_or(String::new(), |s| format!(
            " (shard {} of {}: {in_shard} of the {} test files)",
            s.index,
            s.count,
            files.len()
        )),
        a.out.display(),
        a.out.display()
    );
    Ok(if refused > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn write_scripts(a: &HarnessArgs, names: &BTreeSet<String>) -> Result<()> {
    let mut build = String::from(
        "#!/bin/sh\n# Builds every harness of this folder (NVCC and ARCH may be overridden).\nset -e\ncd \"$(dirname \"$0\")\"\nNVCC=${NVCC:-nvcc}\n",
    );
    // Validated in `run`, and quoted all the same.
    let _ = writeln!(build, "ARCH=${{ARCH:-'{}'}}", a.arch.replace('\'', ""));
    build.push_str("JOBS=${JOBS:-$(nproc 2>/dev/null || echo 4)}\nprintf '%s\\n' \\\n");
    for n in names {
        let _ = writeln!(build, "  '{n}' \\");
    }
    let line = build_line("$0", "$ARCH").replace("nvcc", "$NVCC");
    let _ = writeln!(
        build,
        "| NVCC=\"$NVCC\" ARCH=\"$ARCH\" xargs -P \"$JOBS\" -I{{}} sh -c '{}' '{{}}'",
        line.replace('\'', "")
    );
    let mut runner = String::from(
        "#!/bin/sh\n# Runs every built harness; extra arguments go to each program (e.g. -i 100).\ncd \"$(dirname \"$0\")\"\nstatus=0\n",
    );
    for n in names {
        let _ = writeln!(
            runner,
            "./'{n}' -json '{n}.json' \"$@\" > '{n}.log' || {{ echo \"failed: {n}\" >&2; status=1; }}"
        );
    }
    runner.push_str("exit $status\n");
    for (file, text) in [("build.sh", build), ("run.sh", runner)] {
        let path = a.out.join(file);
        std::fs::write(&path, text).with_context(|| format!("{}", path.display()))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755));
        }
    }
    Ok(())
}
