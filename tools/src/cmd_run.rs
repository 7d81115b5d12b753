//! `ptxemu run`: parse a PTX file, launch one kernel on buffers and scalars given on the
//! command line, and report the outcome (dumps, JSON, faults).
//!
//! Contract (other tools depend on it):
//! `ptxemu run FILE.ptx --kernel NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] [--arg SPEC]...
//! [--dump N=PATH]... [--shared-bytes N] [--max-steps N] [--json]`, extended with
//! `--check-nc` (report writes to bytes an `ld.global.nc` of the launch reads).
//! When Triton's `NAME.json` sits beside `NAME.ptx`, the kernel, block, dynamic shared memory
//! and trailing scratch pointers come from it (`crate::triton_meta`; `triton_metadata` in
//! `--json`).
//! Exit status: 0 on success, 1 when the program faults, 2 for bad input (arguments, parse or
//! validation errors).
//!
//! `--isa sass` runs a SPA 5.0 SASS program instead (see `cmd_run_sass`): same arguments and
//! dumps, parameters in constant bank 0 from 0x140, no `--kernel` needed.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use serde_json::{json, Map, Value as Json};

use crate::argspec::{self, ArgSpec, Value};
use emu::exec::{LaunchConfig, Machine};

/// Arguments of `ptxemu run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The PTX file (or SASS file with `--isa sass`).
    pub file: PathBuf,
    /// The kernel (`.entry`) to launch (PTX only).
    #[arg(long)]
    pub kernel: Option<String>,
    /// The instruction set of FILE: ptx (default) or sass (SPA 5.0).
    #[arg(long, default_value = "ptx")]
    pub isa: String,
    /// Grid shape in CTAs: X[,Y[,Z]].
    #[arg(long, default_value = "1")]
    pub grid: String,
    /// CTA shape in threads: X[,Y[,Z]] (default 1).
    #[arg(long)]
    pub block: Option<String>,
    /// Kernel arguments in parameter order (scalars `u32:7`, buffers `f32[N]:zero`).
    #[arg(long = "arg")]
    pub args: Vec<String>,
    /// Write buffer argument N's final bytes to PATH: N=PATH.
    #[arg(long = "dump")]
    pub dumps: Vec<String>,
    /// Bytes of dynamic shared memory (default 0; PTX only).
    #[arg(long)]
    pub shared_bytes: Option<u32>,
    /// Stop after this many warp instructions.
    #[arg(long, default_value_t = 1_000_000_000)]
    pub max_steps: u64,
    /// Host threads to run CTAs on (0: all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Print one JSON object describing the launch.
    #[arg(long)]
    pub json: bool,
    /// Report writes, during the launch, to bytes an `ld.global.nc` of the launch reads
    /// (exit status 1 when there are any).
    #[arg(long)]
    pub check_nc: bool,
    /// coherent (default) or l1: per-SM non-coherent L1 caches for global data, where weak
    /// `ld.ca` may read lines other SMs' stores made stale (counts in `--json`).
    #[arg(long, default_value = "coherent", value_name = "MODEL")]
    pub cache_model: String,
    /// SMs of the L1 model (CTA k runs on SM k % N).
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub sms: u32,
    /// 128-byte lines per SM in the L1 model.
    #[arg(long, default_value_t = 256, value_name = "N")]
    pub l1_lines: usize,
    /// Print, for each tcgen05 instruction, which Tensor Memory lane and column each register
    /// of each thread came from or went to (in `--json`: `tmem_trace`).
    #[arg(long)]
    pub trace_tmem: bool,
    /// on (default): fault on Tensor Memory accesses the PTX ISA leaves undefined (lanes
    /// outside the warp's quarter, unallocated columns, missing tcgen05.wait, leaks); off.
    #[arg(long, default_value = "on", value_name = "on|off")]
    pub tmem_check: String,
    /// SASS options (with `--isa sass`).
    #[command(flatten)]
    pub sass: crate::cmd_run_sass::SassOptions,
}

/// Parses `X[,Y[,Z]]`.
pub(crate) fn shape(s: &str, what: &str) -> Result<[u32; 3]> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        bail!("--{what} takes X[,Y[,Z]], got `{s}`");
    }
    let mut out = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        out[i] = p
            .trim()
            .parse()
            .map_err(|_| anyhow!("--{what}: `{p}` is not a positive integer"))?;
        if out[i] == 0 {
            bail!("--{what}: dimensions must be at least 1");
        }
    }
    Ok(out)
}

fn json_value(v: Value) -> Json {
    match v {
        Value::U(u) => json!(u),
        Value::I(i) => json!(i),
        Value::F(f) => {
            if f.is_finite() {
                json!(f)
            } else {
                json!(f.to_string())
            }
        }
    }
}

/// Buffer arguments placed in device memory: for each argument, its parameter bytes and, for
/// a buffer, its (address, length).
pub(crate) struct LaidOut {
    /// Parameter values in order.
    pub values: Vec<Vec<u8>>,
    /// For each argument: the buffer's address and length, or `None` for a scalar.
    pub buffers: Vec<Option<(u64, usize)>>,
}

/// Parses the `--arg` specs.
pub(crate) fn specs_of(args: &[String]) -> Result<Vec<ArgSpec>> {
    args.iter()
        .map(|s| argspec::parse(s).map_err(|e| anyhow!("--arg {e}")))
        .collect()
}

/// Places every buffer argument in device memory with `place` (given the initial bytes and
/// the argument's index, it allocates, fills and returns the address); scalars pass as bytes.
pub(crate) fn lay_out(
    specs: &[ArgSpec],
    mut place: impl FnMut(&[u8], usize) -> u64,
) -> Result<LaidOut> {
    let mut out = LaidOut {
        values: Vec::new(),
        buffers: Vec::new(),
    };
    for (i, spec) in specs.iter().enumerate() {
        match spec {
            ArgSpec::Scalar { bytes, .. } => {
                out.values.push(bytes.clone());
                out.buffers.push(None);
            }
            ArgSpec::Buffer { .. } => {
                let bytes = spec.buffer_bytes().map_err(|e| anyhow!("--arg {i}: {e}"))?;
                let addr = place(&bytes, i);
                out.values.push(addr.to_le_bytes().to_vec());
                out.buffers.push(Some((addr, bytes.len())));
            }
        }
    }
    Ok(out)
}

/// Parses `--dump N=PATH` against the laid-out arguments.
pub(crate) fn dumps_of(
    dumps: &[String],
    buffers: &[Option<(u64, usize)>],
) -> Result<Vec<(usize, PathBuf)>> {
    let mut out = Vec::new();
    for d in dumps {
        let (n, path) = d
            .split_once('=')
            .ok_or_else(|| anyhow!("--dump takes N=PATH, got `{d}`"))?;
        let n: usize = n
            .trim()
            .parse()
            .map_err(|_| anyhow!("--dump: `{n}` is not an argument index"))?;
        match buffers.get(n) {
            Some(Some(_)) => out.push((n, PathBuf::from(path))),
            Some(None) => bail!("--dump {n}: argument {n} is a scalar, not a buffer"),
            None => bail!("--dump {n}: there are only {} arguments", buffers.len()),
        }
    }
    Ok(out)
}

/// Writes the dumps, reading final bytes with `read`.
pub(crate) fn write_dumps(
    dumps: &[(usize, PathBuf)],
    buffers: &[Option<(u64, usize)>],
    read: impl Fn(u64, u64) -> Option<Vec<u8>>,
) -> Result<()> {
    for (n, path) in dumps {
        if let Some((addr, len)) = buffers[*n] {
            let bytes = read(addr, len as u64).unwrap_or_default();
            std::fs::write(path, bytes)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    Ok(())
}

/// The `buffers` array of `--json` (values for buffers of at most 4096 elements).
pub(crate) fn buffers_json(
    specs: &[ArgSpec],
    buffers: &[Option<(u64, usize)>],
    read: impl Fn(u64, u64) -> Option<Vec<u8>>,
) -> Vec<Json> {
    let mut bufs = Vec::new();
    for (i, (spec, b)) in specs.iter().zip(buffers).enumerate() {
        let (ArgSpec::Buffer { ty, count, .. }, Some((addr, len))) = (spec, b) else {
            continue;
        };
        let mut o = Map::new();
        o.insert("arg".into(), json!(i));
        o.insert("type".into(), json!(ty.name()));
        o.insert("count".into(), json!(count));
        o.insert("address".into(), json!(format!("0x{addr:x}")));
        if *count <= 4096 {
            let bytes = read(*addr, *len as u64).unwrap_or_default();
            let vals: Vec<Json> = bytes
                .chunks(ty.size())
                .map(|c| json_value(ty.decode(c)))
                .collect();
            o.insert("values".into(), Json::Array(vals));
        }
        bufs.push(Json::Object(o));
    }
    bufs
}

/// The L1 model's counts as JSON: per operator hits, misses, evictions.
fn cache_json(c: &emu::exec::l1::CacheStats) -> Json {
    let ops = |v: &[(&str, emu::exec::l1::OpCounts)]| {
        let mut o = Map::new();
        for (name, k) in v {
            o.insert(
                (*name).to_string(),
                json!({"hits": k.hits, "misses": k.misses, "evictions": k.evictions}),
            );
        }
        Json::Object(o)
    };
    json!({
        "model": "l1",
        "sms": c.sms,
        "lines_per_sm": c.lines,
        "line_bytes": emu::exec::l1::LINE,
        "loads": ops(&c.loads),
        "stores": ops(&c.stores),
        "invalidations": c.invalidations,
    })
}

/// Runs `ptxemu run`; returns the process exit code.
///
/// # Errors
/// Bad input: unreadable files, malformed arguments, parse or validation errors.
pub fn run(a: &RunArgs) -> Result<ExitCode> {
    match a.isa.as_str() {
        "ptx" => {}
        "sass" => return crate::cmd_run_sass::run(a),
        other => bail!("--isa `{other}`: expected ptx or sass"),
    }
    // Triton's NAME.json beside NAME.ptx supplies what its launcher would (triton_meta).
    let meta = crate::triton_meta::TritonMeta::beside(&a.file)?;
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
        .transpose()?;
    let Some(kernel) = applied
        .as_ref()
        .map(|x| x.kernel.as_str())
        .or(a.kernel.as_deref())
    else {
        bail!("--kernel NAME is required for a PTX module");
    };
    let block_text = applied
        .as_ref()
        .map_or(a.block.as_deref().unwrap_or("1"), |x| &x.block);
    let shared_bytes = applied
        .as_ref()
        .map_or(a.shared_bytes.unwrap_or(0), |x| x.shared_bytes);
    let src = crate::source::read_source(&a.file)
        .with_context(|| format!("cannot read {}", a.file.display()))?;
    let name = a.file.display().to_string();
    let module = match emu::front::parse_module(&src, &name) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{}", e.render(&src));
            return Ok(ExitCode::from(2));
        }
    };
    let diags = emu::validate::validate_module(&module);
    if !diags.is_empty() {
        for d in &diags {
            eprintln!("{}", d.render(&src, &name));
        }
        return Ok(ExitCode::from(2));
    }
    let grid = shape(&a.grid, "grid")?;
    let block = shape(block_text, "block")?;
    let mut specs = specs_of(&a.args)?;
    let mut machine =
        Machine::load_with_source(&module, &name, &src).map_err(|e| anyhow!("{name}: {e}"))?;
    let Some(param_sizes) = machine.kernel_params(kernel).map(<[u64]>::to_vec) else {
        let kernels: Vec<String> = module.kernels().map(|(_, f)| f.name.clone()).collect();
        bail!(
            "no kernel named `{kernel}` in {name} (kernels: {})",
            kernels.join(", ")
        );
    };
    let mut meta_json = applied.as_ref().map_or(Json::Null, |x| x.report.clone());
    if let Some(m) = &meta {
        let ctas = grid.iter().map(|&n| u64::from(n)).product();
        let added = crate::triton_meta::add_scratch(m, &param_sizes, &mut specs, ctas)?;
        meta_json["scratch_args"] = json!(added);
    }
    if param_sizes.len() != specs.len() {
        bail!(
            "kernel `{kernel}` takes {} parameter(s) but {} --arg were given",
            param_sizes.len(),
            specs.len()
        );
    }
    for (i, (spec, psize)) in specs.iter().zip(&param_sizes).enumerate() {
        match spec {
            ArgSpec::Scalar { bytes, ty } if bytes.len() as u64 != *psize => bail!(
                "--arg {i}: a {} is {} byte(s) but parameter {i} of `{kernel}` takes {psize}",
                ty.name(),
                bytes.len()
            ),
            ArgSpec::Buffer { .. } if *psize != 8 => bail!(
                "--arg {i}: a buffer passes a 64-bit address but parameter {i} of `{kernel}` takes {psize} byte(s)"
            ),
            _ => {}
        }
    }
    let laid = lay_out(&specs, |bytes, i| {
        let addr = machine.alloc(bytes.len() as u64, &format!("argument {i}"));
        machine.write(addr, bytes);
        addr
    })?;
    let (values, buffers) = (laid.values, laid.buffers);
    let dumps = dumps_of(&a.dumps, &buffers)?;
    let mut cfg = LaunchConfig::new(kernel, grid, block);
    cfg.dynamic_shared = shared_bytes;
    cfg.max_steps = a.max_steps;
    cfg.threads = a.threads;
    cfg.check_nc = a.check_nc;
    cfg.l1 = match a.cache_model.as_str() {
        "coherent" => None,
        "l1" => Some((a.sms.max(1), a.l1_lines.max(1))),
        other => bail!("--cache-model `{other}`: expected coherent or l1"),
    };
    cfg.tmem.trace = a.trace_tmem;
    cfg.tmem.checked = match a.tmem_check.as_str() {
        "on" => true,
        "off" => false,
        other => bail!("--tmem-check `{other}`: expected on or off"),
    };
    let report = machine.launch(&cfg, &values).map_err(|e| anyhow!("{e}"))?;
    write_dumps(&dumps, &buffers, |addr, len| machine.read(addr, len))?;
    if a.json {
        let bufs = buffers_json(&specs, &buffers, |addr, len| machine.read(addr, len));
        let faults: Vec<Json> = report
            .fault
            .iter()
            .map(|f| {
                json!({
                    "kind": f.kind.to_string(),
                    "kernel": f.site.kernel,
                    "cta": f.site.cta,
                    "warp": f.site.warp,
                    "lane": f.site.lane,
                    "thread": f.site.tid,
                    "file": f.site.file,
                    "line": f.site.line,
                    "instruction": f.site.instr,
                    "address": f.site.address.map(|a| format!("0x{a:x}")),
                    "message": f.to_string(),
                })
            })
            .collect();
        let out = json!({
            "kernel": kernel,
            "grid": grid,
            "block": block,
            "shared_bytes": shared_bytes,
            "triton_metadata": meta_json,
            "warp_instructions": report.counts.warp_instructions,
            "thread_instructions": report.counts.thread_instructions,
            "wall_s": report.wall.as_secs_f64(),
            "stdout": String::from_utf8_lossy(&report.stdout),
            "faults": faults,
            "nc_conflicts": report.nc_conflicts.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "cache": report.cache.as_ref().map(cache_json),
            "buffers": bufs,
        });
        let mut out = out;
        if a.trace_tmem {
            out["tmem_trace"] = crate::tmem_trace::json(machine.program(), &report.tmem_trace);
        }
        println!("{out}");
    } else {
        use std::io::Write;
        std::io::stdout().write_all(&report.stdout).ok();
        if a.trace_tmem {
            let t = crate::tmem_trace::text(machine.program(), &report.tmem_trace);
            std::io::stdout().write_all(t.as_bytes()).ok();
        }
    }
    for c in &report.nc_conflicts {
        eprintln!("ptxemu: --check-nc: {c}");
    }
    if let Some(f) = &report.fault {
        eprintln!("ptxemu: {f}");
        return Ok(ExitCode::from(1));
    }
    if !report.nc_conflicts.is_empty() {
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(shape("4", "grid").unwrap(), [4, 1, 1]);
        assert_eq!(shape("4,2", "grid").unwrap(), [4, 2, 1]);
        assert_eq!(shape("1,2,3", "grid").unwrap(), [1, 2, 3]);
        assert!(shape("0", "grid").is_err());
        assert!(shape("1,2,3,4", "grid").is_err());
        assert!(shape("x", "block").is_err());
    }
}
