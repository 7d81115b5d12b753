//! `ptxemu run`: parse a PTX file, launch one kernel on buffers and scalars given on the
//! command line, and report the outcome (dumps, JSON, faults).
//!
//! Contract (other tools depend on it):
//! `ptxemu run FILE.ptx --kernel NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] [--arg SPEC]...
//! [--dump N=PATH]... [--shared-bytes N] [--max-steps N] [--json]`, extended with
//! `--check-nc` (report writes to bytes an `ld.global.nc` of the launch reads),
//! `--set NAME=SPEC` / `--dump-var NAME=PATH` (module `.const`/`.global` variables written
//! before and read after the launch, as `cudaMemcpyToSymbol` and `cudaMemcpyFromSymbol` do)
//! and `--plan FILE` (several launches in one process: `crate::plan`, docs/plan-format.md).
//! When Triton's `NAME.json` sits beside `NAME.ptx`, the kernel, block, dynamic shared memory
//! and trailing scratch pointers come from it (`crate::triton_meta`; `triton_metadata` in
//! `--json`).
//! Exit status: 0 on success, 1 when the program faults, 2 for bad input (arguments, parse or
//! validation errors), 3 when `--timeout S` stopped the launch (no result: see `crate::timeout`). With `--json`, a refused run still prints one JSON object, with
//! `error` (`kind`, `message`). Flags of the other instruction set are refused, not ignored.
//!
//! `--isa sass` runs a SPA 5.0 SASS program instead (see `cmd_run_sass`): same arguments and
//! dumps, parameters in constant bank 0 from 0x140, no `--kernel` needed.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use serde_json::{json, Map, Value as Json};

use crate::argspec::ArgSpec;
use crate::launch::{self, ArgShape};
use crate::triton_meta::{Applied, TritonMeta};

mod buffers;
mod emit_launch;
mod options;

pub(crate) use buffers::{
    after_dumps, buffers_json, dump_to, dumps_of, lay_out, named_of, place_on, shape, shape_named,
    specs_of, write_dumps,
};
use options::foreign_flags;
pub(crate) use options::Checks;

/// Arguments of `ptxemu run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The PTX file (or SASS file with `--isa sass`); with `--plan`, it replaces the plan's
    /// module.
    #[arg(required_unless_present = "plan")]
    pub file: Option<PathBuf>,
    /// The kernel (`.entry`) to launch (PTX only).
    #[arg(long)]
    pub kernel: Option<String>,
    /// The instruction set of FILE: ptx (default) or sass (SPA 5.0).
    #[arg(long, default_value = "ptx")]
    pub isa: String,
    /// Grid shape in CTAs: X, X,Y or X,Y,Z (default 1).
    #[arg(long)]
    pub grid: Option<String>,
    /// CTA shape in threads: X, X,Y or X,Y,Z (default 1).
    #[arg(long)]
    pub block: Option<String>,
    /// Thread-block cluster shape in CTAs: X, X,Y or X,Y,Z (default: the kernel's
    /// `.reqnctapercluster`, else 1). PTX only.
    #[arg(long)]
    pub cluster: Option<String>,
    /// Kernel arguments in parameter order (scalars `u32:7`, buffers `f32[N]:zero`, structs
    /// `{s32:1,u64:@A}`, raw bytes with relocations `bytes[N]:file=P{8=u64:@0,64=tmap(...)}`).
    #[arg(long = "arg")]
    pub args: Vec<String>,
    /// A device buffer that is no kernel parameter, `NAME=TYPE[N]:INIT`: struct fields
    /// (`u64:@NAME`), tensor maps (`buf=NAME`) and `--dump NAME=PATH` name it. PTX only.
    #[arg(long = "buffer", value_name = "NAME=SPEC")]
    pub buffers: Vec<String>,
    /// Write a buffer's final bytes to PATH: N=PATH (buffer argument N) or NAME=PATH (a
    /// `--buffer`).
    #[arg(long = "dump")]
    pub dumps: Vec<String>,
    /// Initialise a module `.const` or `.global` variable before the launch, as
    /// `cudaMemcpyToSymbol` does: NAME=SPEC with an `--arg` spec (a shorter one writes a
    /// prefix). PTX only.
    #[arg(long = "set", value_name = "NAME=SPEC")]
    pub sets: Vec<String>,
    /// Write a module `.const` or `.global` variable's bytes to PATH after the launch:
    /// NAME=PATH. PTX only.
    #[arg(long = "dump-var", value_name = "NAME=PATH")]
    pub dump_vars: Vec<String>,
    /// Run a launch plan (several launches over persistent buffers; docs/plan-format.md).
    #[arg(long, value_name = "PLAN.json")]
    pub plan: Option<PathBuf>,
    /// The folder every file a plan names (its module, `file=` inputs, dumps) must lie in
    /// (default: the plan's folder; relative paths in the plan still start at its folder).
    #[arg(long, value_name = "DIR", requires = "plan")]
    pub plan_root: Option<PathBuf>,
    /// Bytes of dynamic shared memory (default 0; PTX only).
    #[arg(long)]
    pub shared_bytes: Option<u32>,
    /// Stop after this many warp instructions, counted over the whole launch (all CTAs together).
    #[arg(long, default_value_t = 1_000_000_000)]
    pub max_steps: u64,
    /// Host threads to run CTAs on (default 0: all cores; PTX only).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Stop the launch once it has run S seconds: no result, no dumps (exit status 3; with
    /// `--plan`, the whole plan).
    #[arg(long, value_name = "S", value_parser = crate::timeout::seconds)]
    pub timeout: Option<f64>,
    /// The most nested calls a thread may make (default 1024); a deeper call faults, naming
    /// this flag. PTX only.
    #[arg(long, value_name = "N")]
    pub max_call_depth: Option<u32>,
    /// The most device memory the run may hold: buffers, module variables, the device heap,
    /// and the shared and local memory of the CTAs running at once (BYTES, or with a K, M, G
    /// or T suffix; default the machine's memory). A run past it is refused before it starts.
    #[arg(long, value_name = "BYTES", value_parser = crate::memlimit::bytes)]
    pub memory_limit: Option<u64>,
    /// Print one JSON object describing the launch.
    #[arg(long)]
    pub json: bool,
    /// Report writes, during the launch, to bytes an `ld.global.nc` of the launch reads
    /// (exit status 1 when there are any).
    #[arg(long)]
    pub check_nc: bool,
    /// coherent (default) or l1: per-SM non-coherent L1 caches for global data, where weak
    /// `ld.ca` may read lines other SMs' stores made stale (counts in `--json`).
    #[arg(long, value_name = "MODEL")]
    pub cache_model: Option<String>,
    /// The GPU's SMs: `%nsmid`, and the L1 model's SMs (CTA k runs on SM k % N, its `%smid`).
    /// Default: the `--gpu`'s (a100 108, h100 132, b200 148); without `--gpu`, `%nsmid` 1 and
    /// 4 SMs for the L1 model.
    #[arg(long, value_name = "N")]
    pub sms: Option<u32>,
    /// 128-byte lines per SM in the L1 model (default 256).
    #[arg(long, value_name = "N")]
    pub l1_lines: Option<usize>,
    /// Print, for each tcgen05 instruction, which Tensor Memory lane and column each register
    /// of each thread came from or went to (in `--json`: `tmem_trace`).
    #[arg(long)]
    pub trace_tmem: bool,
    /// on (default): fault on Tensor Memory accesses the PTX ISA leaves undefined (lanes
    /// outside the warp's quarter, unallocated columns, missing tcgen05.wait, leaks, an MMA
    /// result read by a thread that did not wait for its commit); strict: also a missing
    /// tcgen05.fence::after_thread_sync before that read; off.
    #[arg(long, value_name = "on|strict|off")]
    pub tmem_check: Option<String>,
    /// on (default): fault on accesses through different memory proxies that the PTX memory
    /// model leaves unordered (a generic write read by a TMA copy or wgmma with no
    /// fence.proxy.async, async-copied bytes read before their completion is observed, a
    /// tensor map written generically and used without fence.proxy.tensormap::generic); off.
    #[arg(long, value_name = "on|off")]
    pub proxy_check: Option<String>,
    /// on (default): a read of a `wgmma.mma_async` accumulator before the `wgmma.wait_group`
    /// that retires it waits for the warp's committed groups, as the code ptxas makes does
    /// (ptxas injects the wait); strict: report it as undefined behaviour (PTX ISA rule).
    #[arg(long, value_name = "on|strict")]
    pub wgmma_check: Option<String>,
    /// Do not run: write the launch to DIR (`launch.txt`, `module.ptx`, `argN.bin`) for
    /// `tools/gpu/launch_host.cu` to replay on a GPU (see `cmd_run/emit_launch.rs`).
    #[arg(long, value_name = "DIR")]
    pub emit_launch: Option<PathBuf>,
    /// The GPU whose tensor-core numerics (and sm-dependent behaviour) to emulate (default:
    /// the one the module's `.target` names, sm_80 → a100, sm_90 → h100, sm_100 → b200),
    /// and what it reports: its SM count (`%nsmid`; `--sms` overrides) and the shared memory
    /// a CTA may have (a100 163 KiB, h100 and b200 227 KiB). The module is still validated
    /// against its `.target`: sm_80 code run on an H100 gives the H100's `mma` results, and
    /// `--gpu h100` reproduces them.
    #[arg(long, value_enum)]
    pub gpu: Option<crate::difftest::record::Gpu>,
    /// The most CTAs resident at once (default: no limit): later clusters start only as
    /// running ones finish, as on a GPU whose SMs are full, so that
    /// `clusterlaunchcontrol.try_cancel` finds clusters to cancel. PTX only.
    #[arg(long, value_name = "N")]
    pub resident_ctas: Option<u64>,
    /// Whether `clusterlaunchcontrol.try_cancel` succeeds while clusters remain unstarted:
    /// succeed (default, as hardware does), fail (every request fails), or random:SEED (each
    /// request draws success from the seed, replayably).
    #[arg(long, value_name = "POLICY")]
    pub try_cancel: Option<String>,
    /// SASS options (with `--isa sass`).
    #[command(flatten)]
    pub sass: crate::cmd_run_sass::SassOptions,
    /// Race detection (`--race`, `--schedule`, `--seed`, `--runs`).
    #[command(flatten)]
    pub race: crate::race_run::RaceArgs,
}

/// Reports a launch's `--check-nc` conflicts and fault on standard error; returns the exit
/// status they call for (0 or 1).
pub(crate) fn report_problems(report: &emu::exec::LaunchReport, context: &str) -> u8 {
    for c in &report.nc_conflicts {
        errln!("ptxemu: {context}--check-nc: {c}");
    }
    if let Some(f) = &report.fault {
        errln!("ptxemu: {context}{f}");
        return 1;
    }
    u8::from(!report.nc_conflicts.is_empty())
}

/// Runs `ptxemu run`; returns the process exit code. With `--json`, a refusal is also one
/// JSON object (`error`: `kind`, `message`) on standard output.
///
/// # Errors
/// None: refusals are reported here (exit status 2).
pub fn run(a: &RunArgs) -> Result<ExitCode> {
    let result = foreign_flags(a)
        .and_then(|()| match &a.emit_launch {
            Some(_) => emit_launch::refuse_unreplayable(a),
            None => Ok(()),
        })
        .and_then(|()| match (a.isa.as_str(), &a.plan) {
            ("sass", _) => crate::cmd_run_sass::run(a),
            (_, Some(plan)) => crate::plan::run(a, plan),
            _ => run_ptx(a),
        });
    match result {
        Ok(code) => Ok(code),
        Err(e) => {
            if !launch::was_shown(&e) {
                errln!("ptxemu: {e:#}");
            }
            if a.json {
                let mut o = Map::new();
                if let Some(p) = &a.plan {
                    o.insert("plan".into(), json!(p.display().to_string()));
                    o.insert("launches".into(), json!([]));
                }
                if let Some(f) = &a.file {
                    o.insert("file".into(), json!(f.display().to_string()));
                }
                if let Some(k) = &a.kernel {
                    o.insert("kernel".into(), json!(k));
                }
                o.insert(
                    "error".into(),
                    json!({"kind": launch::kind_of(&e), "message": format!("{e:#}")}),
                );
                if a.plan.is_none() {
                    o.insert("faults".into(), json!([]));
                }
                outln!("{}", Json::Object(o));
            }
            Ok(ExitCode::from(2))
        }
    }
}

/// Triton's `NAME.json` beside `NAME.ptx`, if any, and what it supplies to this launch (the
/// kernel, block, dynamic shared memory) given the flags.
fn triton(a: &RunArgs) -> Result<(Option<TritonMeta>, Option<Applied>)> {
    let meta = match a.file.as_deref() {
        Some(f) => crate::triton_meta::beside(f, a.kernel.is_some() && a.block.is_some())
            .map_err(|e| launch::refuse("arguments", format!("{e:#}")))?,
        None => None,
    };
    let applied = meta
        .as_ref()
        .map(|m| {
            let given = crate::triton_meta::Given {
                kernel: a.kernel.as_deref(),
                block: a.block.as_deref(),
                shared_bytes: a.shared_bytes,
            };
            crate::triton_meta::apply(m, &given)
        })
        .transpose()
        .map_err(|e| launch::refuse("arguments", format!("{e:#}")))?;
    Ok((meta, applied))
}

/// The module's kernel when it has exactly one (CUTLASS kernels have long mangled names), so
/// that `--kernel` may be left out; `None` when it has several.
///
/// # Errors
/// The module does not load (reported as for any run: file:line:col).
fn only_kernel(file: &std::path::Path, limit: Option<u64>) -> Result<Option<String>> {
    let loaded = launch::load(file, limit)?;
    let mut k = loaded.module.kernels().map(|(_, f)| f.name.clone());
    match (k.next(), k.next()) {
        (Some(one), None) => Ok(Some(one)),
        (None, _) => Err(launch::refuse(
            "no_kernel",
            format!("{} has no kernel", file.display()),
        )),
        _ => Ok(None),
    }
}

/// The single-launch PTX path.
fn run_ptx(a: &RunArgs) -> Result<ExitCode> {
    let (meta, applied) = triton(a)?;
    let only = match (&applied, &a.kernel, a.file.as_deref()) {
        (None, None, Some(f)) => only_kernel(f, crate::memlimit::limit(a.memory_limit))?,
        _ => None,
    };
    let Some(kernel) = applied
        .as_ref()
        .map(|x| x.kernel.as_str())
        .or(a.kernel.as_deref())
        .or(only.as_deref())
    else {
        return Err(launch::refuse(
            "arguments",
            "--kernel NAME is required for a PTX module with several kernels",
        ));
    };
    let block_text = applied
        .as_ref()
        .map_or(a.block.as_deref().unwrap_or("1"), |x| &x.block);
    let shared_bytes = applied
        .as_ref()
        .map_or(a.shared_bytes.unwrap_or(0), |x| x.shared_bytes);
    let file = a
        .file
        .as_deref()
        .ok_or_else(|| launch::refuse("arguments", "a PTX file is required"))?;
    let checks = Checks::of(a)?;
    let mut loaded = launch::load_on(
        file,
        a.gpu.map(crate::difftest::record::Gpu::sm),
        crate::memlimit::limit(a.memory_limit),
    )?;
    let kernel = launch::resolve_kernel(&loaded, kernel)?;
    let kernel = kernel.as_str();
    let grid = shape(a.grid.as_deref().unwrap_or("1"), "grid")
        .map_err(|e| launch::refuse("arguments", format!("{e:#}")))?;
    // Triton's clusters: `--grid` is the grid kernel[grid] was given.
    let (grid, meta_cluster) = match &meta {
        Some(m) => m
            .cta_grid(grid)
            .map_err(|e| launch::refuse("arguments", e))?,
        None => (grid, None),
    };
    let block =
        shape(block_text, "block").map_err(|e| launch::refuse("arguments", format!("{e:#}")))?;
    let mut specs = specs_of(&a.args).map_err(|e| launch::refuse("arguments", format!("{e:#}")))?;
    let named = named_of(&a.buffers).map_err(|e| launch::refuse("arguments", format!("{e:#}")))?;
    let mut meta_json = applied.as_ref().map_or(Json::Null, |x| x.report.clone());
    if let (Some(m), Some(params)) = (&meta, loaded.machine.kernel_params(kernel)) {
        let ctas = grid.iter().map(|&n| u64::from(n)).product();
        let params = params.to_vec();
        let added = crate::triton_meta::add_scratch(m, &params, &mut specs, ctas)
            .map_err(|e| launch::refuse("arguments", format!("{e:#}")))?;
        meta_json["scratch_args"] = json!(added);
    }
    let shapes: Vec<ArgShape> = specs.iter().map(ArgShape::of).collect();
    launch::check_args(&loaded, kernel, &shapes)?;
    if let Some(dir) = &a.emit_launch {
        let cluster = a
            .cluster
            .as_deref()
            .map(|c| shape(c, "cluster"))
            .transpose();
        let l = emit_launch::Launch {
            file,
            kernel,
            grid,
            block,
            cluster: cluster.map_err(|e| launch::refuse("arguments", format!("{e:#}")))?,
            shared_bytes,
        };
        return emit_launch::emit(dir, &l, &specs);
    }
    let sets = a
        .sets
        .iter()
        .map(|s| launch::var_write(&loaded, s, None))
        .collect::<Result<Vec<_>>>()?;
    let var_dumps = a
        .dump_vars
        .iter()
        .map(|d| launch::var_dump(&loaded, d))
        .collect::<Result<Vec<_>>>()?;
    let footprint = loaded
        .machine
        .footprint(&checks.config(kernel, grid, block, shared_bytes))
        .unwrap_or_default();
    let named_specs: Vec<ArgSpec> = named.iter().map(|(_, s)| s.clone()).collect();
    crate::memlimit::check(
        crate::memlimit::limit(a.memory_limit),
        &[
            crate::memlimit::buffer_parts(&specs),
            crate::memlimit::buffer_parts(&named_specs),
            footprint,
        ]
        .concat(),
    )?;
    let machine = &mut loaded.machine;
    let laid = lay_out(&specs, &named, |contents, label| {
        place_on(machine, contents, label)
    })
    .map_err(|e| launch::or_kind(e, "arguments"))?;
    let values = laid.values.clone();
    let dumps =
        dumps_of(&a.dumps, &laid).map_err(|e| launch::refuse("arguments", format!("{e:#}")))?;
    let mut set_json = Vec::new();
    for w in &sets {
        set_json.push(launch::apply_var_write(machine, w)?);
    }
    let race_plan = a.race.plan()?;
    let mut cfg = checks.config(kernel, grid, block, shared_bytes);
    cfg.cluster = a
        .cluster
        .as_deref()
        .map(|c| shape(c, "cluster"))
        .transpose()
        .map_err(|e| launch::refuse("arguments", format!("{e:#}")))?;
    match (cfg.cluster, meta_cluster) {
        (Some(given), Some(m)) if given != m => {
            return Err(launch::refuse(
                "arguments",
                format!(
                    "--cluster {},{},{}, but the Triton metadata says num_ctas = {} (clusters of {},1,1)",
                    given[0], given[1], given[2], m[0], m[0]
                ),
            ))
        }
        (None, Some(m)) => cfg.cluster = Some(m),
        _ => {}
    }
    cfg.race = race_plan.as_ref().map(|p| p.opts);
    let deadline = cfg
        .timeout
        .and_then(|t| std::time::Instant::now().checked_add(t));
    let report = crate::progress::with_ctas(a.json, &mut cfg, |cfg| {
        launch::launch(machine, &loaded.module, cfg, &values)
    })?;
    if crate::timeout::stopped(&report) {
        return Ok(crate::timeout::report_stop(&cfg, &report, machine, a.json));
    }
    // A dump that cannot be written must not hide the fault: both are reported, and the
    // exit status stays the fault's.
    let mut dumped = write_dumps(&dumps, |addr, out| machine.read_into(addr, out));
    for (var, path) in &var_dumps {
        dumped = dumped.and_then(|()| launch::write_var_dump(machine, var, path));
    }
    let mut runs_stopped = None;
    let races = match &race_plan {
        Some(p) => {
            let mut m = crate::race_run::Merged::new(p, &cfg.kernel, report.races.as_ref());
            runs_stopped = m.explore(
                p,
                file,
                (&specs, &named),
                &a.sets,
                &cfg,
                crate::race_run::RunBounds {
                    limit: crate::memlimit::limit(a.memory_limit),
                    deadline,
                },
            )?;
            Some(m)
        }
        None => None,
    };
    if a.json {
        let bufs = buffers_json(&specs, &named, &laid, |addr, len| machine.read(addr, len));
        let mut out = launch::launch_json(&cfg, &report, bufs, machine, checks.trace_tmem);
        if meta.is_some() {
            out.insert("triton_metadata".into(), meta_json);
        }
        if !a.sets.is_empty() {
            out.insert("sets".into(), Json::Array(set_json));
        }
        if let Some(m) = &races {
            let (r, s, sum) = m.json();
            out.insert("races".into(), r);
            out.insert("race_schedules".into(), s);
            out.insert("race_summary".into(), sum);
        }
        if runs_stopped.is_some() {
            out.insert("stopped_by_timeout".into(), Json::Bool(true));
        }
        outln!("{}", Json::Object(out));
    } else {
        launch::print_text(&report, machine, checks.trace_tmem);
    }
    let mut code = after_dumps(report_problems(&report, ""), dumped);
    if let Some(m) = &races {
        m.print("");
        code = code.max(u8::from(m.fails()));
    }
    if runs_stopped.is_some() {
        code = 3;
    }
    Ok(ExitCode::from(code))
}
