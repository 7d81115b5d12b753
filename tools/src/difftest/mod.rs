//! `ptxemu difftest`: random PTX kernels run on a GPU and on ptxemu, compared bit for bit;
//! mismatches shrunk to minimal kernels and saved as regression fixtures.
//!
//! Contract: `ptxemu difftest [--count N] [--seed S] [--per-module K] [--jobs J] [--out DIR]
//! [--host PATH | --nvcc PATH] [--gen-only] [--emu-only] [--max-shrink M] [--time-limit S]
//! [--timeout S] [--family scalar|mma] [--arch sm_80|sm_90a|sm_100a]`. Kernel `i` of the run is
//! `Case::generate(FAMILY, ARCH, kernel_seed(S, i))`; kernels are grouped `K` to a module. The
//! GPU side is a driver-API program (`DIR/difftest_host.cu`, built with nvcc unless `--host`
//! names a built one) speaking the protocol of [`host`]. Writes `DIR/summary.json` and, per
//! mismatch, `DIR/mismatches/seed-<seed>.{ptx,in.bin,gpu.bin,emu.bin,txt}`. Exit status: 0
//! when every kernel agrees, 1 when some mismatch, 2 on errors, 3 when `--timeout S` stopped
//! the run (no verdict: no shrinking, no summary; stderr gives the counts so far).
//!
//! `--family mma` generates tensor-core kernels ([`mma`]) for `--arch` instead of scalar
//! ones: integer results and moved bits must agree exactly, floating-point results within
//! the bound [`judge`] states; kernels equal only within that bound are counted
//! (`within_bound` in the summary), since bit-for-bit agreement is what the numerics model
//! aims at.

pub mod case;
pub mod gen;
pub mod host;
pub mod inputs;
pub mod judge;
mod mismatch;
pub mod mma;
pub mod mma_sm100;
pub mod record;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use case::{Case, Family};
use clap::Args;
use emu::exec::{LaunchConfig, Machine};
use gen::{Rng, FRAME, THREADS};
use judge::Verdict;
use mismatch::Mismatch;
use mma::Arch;
use serde_json::json;

/// Arguments of `ptxemu difftest`.
#[derive(Args, Debug)]
pub struct DifftestArgs {
    /// Kernels to generate and compare (at least 1).
    #[arg(long, default_value_t = 1000, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    count: u64,
    /// Seed of the run.
    #[arg(long, default_value_t = 1, value_name = "S")]
    seed: u64,
    /// Kernels per module (one JIT per module).
    #[arg(long, default_value_t = 250, value_name = "K")]
    per_module: u64,
    /// Worker threads (default, or 0: the machine's cores).
    #[arg(long, value_name = "J")]
    jobs: Option<usize>,
    /// Folder for modules, the host program, mismatches and the summary.
    #[arg(long, default_value = "difftest", value_name = "DIR")]
    out: PathBuf,
    /// A built host program, with leading arguments if any (default: build
    /// DIR/difftest_host.cu with nvcc). `ptxemu difftest-host` is an emulator-backed stand-in.
    #[arg(long, value_name = "COMMAND")]
    host: Option<String>,
    /// The nvcc that builds the host program.
    #[arg(long, default_value = "nvcc", value_name = "PATH")]
    nvcc: String,
    /// Write the host program's source and the first module, then stop.
    #[arg(long)]
    gen_only: bool,
    /// No GPU: run every kernel through ptxemu only and report any that it rejects or faults.
    #[arg(long)]
    emu_only: bool,
    /// Stop starting new modules after this many seconds (the summary says how many kernels
    /// ran); shrinking and the summary follow.
    #[arg(long, value_name = "SECONDS", value_parser = positive_seconds)]
    time_limit: Option<f64>,
    /// Stop the run once it has run S seconds (checked between modules), without a verdict:
    /// no shrinking and no summary (exit status 3).
    #[arg(long, value_name = "S", value_parser = crate::timeout::seconds)]
    timeout: Option<f64>,
    /// Mismatches to shrink and save (the rest are counted).
    #[arg(long, default_value_t = 20, value_name = "M")]
    max_shrink: usize,
    /// Which kernels: random scalar code, or tensor-core and async-copy instructions.
    #[arg(long, value_enum, default_value_t = Family::Scalar)]
    family: Family,
    /// The target of the mma family's modules (scalar modules target sm_90).
    #[arg(long, value_enum, default_value_t = Arch::Sm80)]
    arch: Arch,
    #[command(flatten)]
    rec: record::RecordArgs,
}

/// A time limit: a finite number of seconds above zero.
fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("`{s}` is not a finite number of seconds above 0")),
    }
}

/// Arguments of the emulator-backed host (`ptxemu difftest-host`), for machines without a
/// GPU and for testing the comparison itself.
#[derive(Args, Debug)]
pub struct HostArgs {
    /// Corrupt the output of every kernel whose text contains this string (testing aid).
    #[arg(long, value_name = "TEXT")]
    perturb: Option<String>,
    /// `(MODULE.ptx INPUT.bin KERNELS OUTPUT.bin)...`
    #[arg(required = true, num_args = 4.., value_name = "ARGS")]
    args: Vec<String>,
}

/// The seed of kernel `i` of a run seeded `seed`.
pub fn kernel_seed(seed: u64, i: u64) -> u64 {
    let mut g = Rng::new(seed.wrapping_mul(0x1000_0000_01B3) ^ i);
    g.next()
}

/// Runs kernels `k0…k{n-1}` of a module on ptxemu with the input frames; each kernel's
/// output frames, or why ptxemu could not run it.
pub fn run_emu(ptx: &str, n: usize, input: &[u8]) -> Vec<Result<Vec<u8>, String>> {
    run_emu_on(ptx, n, input, None)
}

/// [`run_emu`] on the GPU `sm` (`None`: the module's target): the module is validated
/// against its `.target`, then executed as on that GPU.
pub fn run_emu_on(
    ptx: &str,
    n: usize,
    input: &[u8],
    sm: Option<u32>,
) -> Vec<Result<Vec<u8>, String>> {
    let mut module = match emu::front::parse_module(ptx, "difftest.ptx") {
        Ok(m) => m,
        Err(e) => return vec![Err(e.render(ptx)); n],
    };
    if let Some(d) = emu::validate::validate_module(&module).first() {
        return vec![Err(d.render(ptx, "difftest.ptx")); n];
    }
    if let Some(sm) = sm {
        module.target.sm = sm;
    }
    let module = match emu::validate::Validated::new(module) {
        Ok(v) => v,
        Err(d) => return vec![Err(d[0].render(ptx, "difftest.ptx")); n],
    };
    let mut machine = match Machine::load_with_source(&module, "difftest.ptx", ptx) {
        Ok(m) => m,
        Err(e) => return vec![Err(e.to_string()); n],
    };
    let size = (FRAME * THREADS) as u64;
    let (din, dout) = match (machine.alloc(size, "in"), machine.alloc(size, "out")) {
        (Ok(i), Ok(o)) => (i, o),
        (Err(e), _) | (_, Err(e)) => return vec![Err(e.to_string()); n],
    };
    machine.write(din, input);
    (0..n)
        .map(|k| {
            machine.write(dout, &vec![0xA5u8; FRAME * THREADS]);
            let mut cfg = LaunchConfig::new(&format!("k{k}"), [1, 1, 1], [THREADS as u32, 1, 1]);
            cfg.threads = 1;
            cfg.max_steps = 1_000_000;
            let args = vec![din.to_le_bytes().to_vec(), dout.to_le_bytes().to_vec()];
            machine.launch(&cfg, &args).map_err(|e| e.to_string())?;
            machine
                .read(dout, size)
                .ok_or_else(|| "output unreadable".to_string())
        })
        .collect()
}

/// Runs the emulator-backed host.
pub fn run_host(a: &HostArgs) -> Result<ExitCode> {
    if !a.args.len().is_multiple_of(4) {
        bail!("expected (MODULE.ptx INPUT.bin KERNELS OUTPUT.bin)...");
    }
    for c in a.args.chunks(4) {
        let ptx = std::fs::read_to_string(&c[0]).with_context(|| c[0].clone())?;
        let input = std::fs::read(&c[1]).with_context(|| c[1].clone())?;
        let n: usize = c[2]
            .parse()
            .map_err(|_| anyhow!("bad kernel count `{}`", c[2]))?;
        let mut out = Vec::new();
        for (k, r) in run_emu(&ptx, n, &input).into_iter().enumerate() {
            let mut bytes = r.map_err(|e| anyhow!("{}: k{k}: {e}", c[0]))?;
            if let Some(t) = &a.perturb {
                if entry_text(&ptx, k).contains(t.as_str()) {
                    bytes[0] ^= 1;
                }
            }
            out.extend(bytes);
        }
        std::fs::write(&c[3], out).with_context(|| c[3].clone())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The text of kernel `k` in a generated module.
fn entry_text(ptx: &str, k: usize) -> &str {
    let start = ptx.find(&format!(".entry k{k}(")).unwrap_or(ptx.len());
    let end = ptx[start..].find("\n}\n").map_or(ptx.len(), |e| start + e);
    &ptx[start..end]
}

/// The host program and its leading arguments.
struct HostCommand(Vec<String>);

/// Runs `kernels` on the GPU host: one output frame set per kernel, or the JIT's complaint.
fn run_gpu(
    host: &HostCommand,
    dir: &Path,
    tag: &str,
    (kernels, arch): (&[Case], Arch),
    input: &[u8],
) -> Result<Result<Vec<Vec<u8>>, String>> {
    let ptx_path = dir.join(format!("{tag}.ptx"));
    let in_path = dir.join(format!("{tag}.in.bin"));
    let out_path = dir.join(format!("{tag}.out.bin"));
    std::fs::write(&ptx_path, case::module(kernels, arch))?;
    std::fs::write(&in_path, input)?;
    let _ = std::fs::remove_file(&out_path);
    let err_path = PathBuf::from(format!("{}.err", out_path.display()));
    let _ = std::fs::remove_file(&err_path);
    let st = Command::new(&host.0[0])
        .args(&host.0[1..])
        .arg(&ptx_path)
        .arg(&in_path)
        .arg(kernels.len().to_string())
        .arg(&out_path)
        .status()
        .with_context(|| format!("running {}", host.0.join(" ")))?;
    if !st.success() {
        bail!("{} failed ({st})", host.0.join(" "));
    }
    if let Ok(log) = std::fs::read_to_string(&err_path) {
        return Ok(Err(log));
    }
    let bytes = std::fs::read(&out_path)?;
    let frame = FRAME * THREADS;
    if bytes.len() != frame * kernels.len() {
        bail!(
            "{}: {} bytes, expected {}",
            out_path.display(),
            bytes.len(),
            frame * kernels.len()
        );
    }
    for p in [&ptx_path, &in_path, &out_path] {
        let _ = std::fs::remove_file(p);
    }
    Ok(Ok(bytes.chunks(frame).map(<[u8]>::to_vec).collect()))
}

/// Runs the subcommand.
pub fn run(a: &DifftestArgs) -> Result<ExitCode> {
    if a.per_module == 0 || a.count == 0 {
        bail!("--count and --per-module must be positive");
    }
    if let Some(p) = &a.rec.replay {
        return record::replay(p, &a.out, a.rec.gpu);
    }
    std::fs::create_dir_all(&a.out).with_context(|| a.out.display().to_string())?;
    let src_path = a.out.join("difftest_host.cu");
    std::fs::write(&src_path, host::source())?;
    let modules = a.count.div_ceil(a.per_module);
    let arch = a.arch;
    if a.gen_only {
        let ks: Vec<Case> = kernels_of(a, 0).into_iter().map(|x| x.1).collect();
        std::fs::write(a.out.join("module0.ptx"), case::module(&ks, arch))?;
        std::fs::write(a.out.join("module0.in.bin"), input_of(a, 0))?;
        outln!(
            "wrote {} and module0.ptx ({} kernels); build: {} -O2 -o {} {} -lcuda",
            src_path.display(),
            ks.len(),
            a.nvcc,
            a.out.join("difftest_host").display(),
            src_path.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let host = host_command(a, &src_path)?;
    let jobs = a
        .jobs
        .filter(|&j| j > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let next = AtomicUsize::new(0);
    let tally = Tally::default();
    let t0 = Instant::now();
    let deadline = crate::timeout::duration(a.timeout).and_then(|d| t0.checked_add(d));
    let timed_out = AtomicBool::new(false);
    let work = a.out.join("work");
    std::fs::create_dir_all(&work)?;
    let rec = a.rec.record.as_deref();
    let rec = rec
        .map(|p| {
            record::Recorder::create(p, a.family, arch, a.seed, a.per_module, a.rec.mma_inputs)
        })
        .transpose()?;
    std::thread::scope(|s| {
        for w in 0..jobs {
            let (next, tally, host, work, timed_out) = (&next, &tally, &host, &work, &timed_out);
            let rec = rec.as_ref();
            s.spawn(move || loop {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    timed_out.store(true, Ordering::Relaxed);
                    break;
                }
                if a.time_limit.is_some_and(|l| t0.elapsed().as_secs_f64() > l) {
                    break;
                }
                let m = next.fetch_add(1, Ordering::Relaxed) as u64;
                if m >= modules {
                    break;
                }
                compare_module(a, (host.as_ref(), rec), work, w, m, tally);
            });
        }
    });
    let elapsed = t0.elapsed().as_secs_f64();
    if let Some(r) = rec {
        r.finish()?;
    }
    let compared = tally.compared.load(Ordering::Relaxed);
    let mut found = tally.mismatches.into_inner().expect("lock");
    if timed_out.load(Ordering::Relaxed) && (compared as u64) < a.count {
        let _ = std::fs::remove_dir_all(&work);
        errln!(
            "ptxemu difftest: stopped by --timeout {} after {} of {} kernel(s) compared ({} mismatch(es), {} error(s) so far) in {elapsed:.1} s; no verdict",
            a.timeout.unwrap_or_default(),
            compared,
            a.count,
            found.len(),
            tally.errors.lock().map_or(0, |e| e.len()),
        );
        return Ok(ExitCode::from(3));
    }
    found.sort_by_key(|m| m.seed);
    let errors = tally.errors.into_inner().expect("lock");
    let mut saved = Vec::new();
    if !found.is_empty() {
        let dir = a.out.join("mismatches");
        std::fs::create_dir_all(&dir)?;
        for m in found.iter().take(a.max_shrink) {
            saved.push(mismatch::save(a, m, host.as_ref(), &work, &dir)?);
        }
    }
    let mut within_bound = tally.within_bound.into_inner().expect("lock");
    within_bound.sort();
    let summary = json!({
        "kernels": compared,
        "requested": a.count,
        "stopped_by_time_limit": (compared as u64) < a.count,
        "seed": a.seed,
        "family": a.family.name(),
        "arch": if a.family == Family::Mma { Some(arch.name()) } else { None },
        "within_bound": within_bound.len(),
        "within_bound_first_100": within_bound.iter().take(100).collect::<Vec<_>>(),
        "per_module": a.per_module,
        "threads_per_kernel": THREADS,
        "gpu": !a.emu_only,
        "mismatches": found.len(),
        "mismatch_seeds_first_1000": found.iter().take(1000).map(|m| m.seed).collect::<Vec<_>>(),
        "saved": saved,
        "errors": errors,
        "wall_s": elapsed,
    });
    std::fs::write(
        a.out.join("summary.json"),
        serde_json::to_string_pretty(&summary)?,
    )?;
    let _ = std::fs::remove_dir_all(&work);
    outln!(
        "{} kernel(s) compared{} in {elapsed:.1} s: {} mismatch(es), {} error(s); summary in {}",
        compared,
        if a.emu_only {
            " (ptxemu only)"
        } else {
            " with the GPU"
        },
        found.len(),
        errors.len(),
        a.out.join("summary.json").display()
    );
    for m in found.iter().take(5) {
        outln!("  seed {}: {}", m.seed, m.what.lines().next().unwrap_or(""));
    }
    for e in errors.iter().take(5) {
        outln!("  error: {e}");
    }
    Ok(if !errors.is_empty() {
        ExitCode::from(2)
    } else if found.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The kernels of module `m`, each with its seed.
fn kernels_of(a: &DifftestArgs, m: u64) -> Vec<(u64, Case)> {
    let lo = m * a.per_module;
    let hi = (lo + a.per_module).min(a.count);
    (lo..hi)
        .map(|i| {
            let s = kernel_seed(a.seed, i);
            (s, Case::generate(a.family, a.arch, s))
        })
        .collect()
}

/// The input buffer of module `m`.
fn input_of(a: &DifftestArgs, m: u64) -> Vec<u8> {
    record::inputs(a.family, a.rec.mma_inputs, a.seed, m)
}

/// The GPU host program: none with `--emu-only`, the `--host` command, or the host source
/// built with nvcc.
fn host_command(a: &DifftestArgs, src_path: &Path) -> Result<Option<HostCommand>> {
    Ok(if a.emu_only {
        None
    } else if let Some(h) = &a.host {
        let words: Vec<String> = h.split_whitespace().map(str::to_string).collect();
        if words.is_empty() {
            bail!("--host: empty command");
        }
        Some(HostCommand(words))
    } else {
        let bin = a.out.join("difftest_host");
        let st = Command::new(&a.nvcc)
            .args(["-O2", "-o"])
            .arg(&bin)
            .arg(src_path)
            .arg("-lcuda")
            .status()
            .with_context(|| {
                format!("running {} (use --host or --emu-only without nvcc)", a.nvcc)
            })?;
        if !st.success() {
            bail!("{} could not build {}", a.nvcc, src_path.display());
        }
        Some(HostCommand(vec![bin.display().to_string()]))
    })
}

/// What the workers have found so far.
#[derive(Default)]
struct Tally {
    /// Kernels compared.
    compared: AtomicUsize,
    /// Kernels on which the GPU and ptxemu disagree.
    mismatches: Mutex<Vec<Mismatch>>,
    /// Kernels that agree within the numerics bound, not bit for bit.
    within_bound: Mutex<Vec<String>>,
    /// Modules that could not be compared.
    errors: Mutex<Vec<String>>,
}

/// Runs module `m` on ptxemu and (with a host) on the GPU, as worker `w`, and records each
/// kernel's verdict in `tally`.
fn compare_module(
    a: &DifftestArgs,
    (host, rec): (Option<&HostCommand>, Option<&record::Recorder>),
    work: &Path,
    w: usize,
    m: u64,
    tally: &Tally,
) {
    let arch = a.arch;
    let ks = kernels_of(a, m);
    let input = input_of(a, m);
    let list: Vec<Case> = ks.iter().map(|x| x.1.clone()).collect();
    let ptx = case::module(&list, arch);
    let emu = run_emu_on(&ptx, list.len(), &input, a.rec.gpu.map(record::Gpu::sm));
    let gpu = match host {
        None => None,
        Some(h) => match run_gpu(h, work, &format!("w{w}"), (&list, arch), &input) {
            Ok(Ok(g)) => Some(g),
            Ok(Err(log)) => {
                tally.errors.lock().expect("lock").push(format!(
                    "module {m}: the JIT rejected it: {}",
                    log.lines().take(3).collect::<Vec<_>>().join(" / ")
                ));
                return;
            }
            Err(e) => {
                tally
                    .errors
                    .lock()
                    .expect("lock")
                    .push(format!("module {m}: {e:#}"));
                return;
            }
        },
    };
    for (j, ((seed, case), e)) in ks.iter().zip(emu).enumerate() {
        if let (Some(r), Some(g)) = (rec, &gpu) {
            r.push(m * a.per_module + j as u64, *seed, case, &g[j]);
        }
        let what = match (&e, gpu.as_ref().map(|g| &g[j])) {
            (Err(msg), _) => Some(format!("ptxemu could not run it: {msg}")),
            (Ok(out), Some(g)) => match case.compare(g, out) {
                Verdict::Same => None,
                Verdict::Close(n, first) => {
                    tally.within_bound.lock().expect("lock").push(format!(
                        "seed {seed}: {n} word(s) within the bound, first {first}"
                    ));
                    None
                }
                Verdict::Differ(d) => Some(d),
            },
            _ => None,
        };
        if let Some(what) = what {
            tally.mismatches.lock().expect("lock").push(Mismatch {
                index: m * a.per_module + j as u64,
                seed: *seed,
                what,
            });
        }
        tally.compared.fetch_add(1, Ordering::Relaxed);
    }
}
