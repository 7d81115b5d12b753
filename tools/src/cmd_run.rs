//! `ptxemu run`: parse a PTX file, launch one kernel on buffers and scalars given on the
//! command line, and report the outcome (dumps, JSON, faults).
//!
//! Contract (other tools depend on it):
//! `ptxemu run FILE.ptx --kernel NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] [--arg SPEC]...
//! [--dump N=PATH]... [--shared-bytes N] [--max-steps N] [--json]`.
//! Exit status: 0 on success, 1 when the program faults, 2 for bad input (arguments, parse or
//! validation errors).

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
    /// The PTX file.
    pub file: PathBuf,
    /// The kernel (`.entry`) to launch.
    #[arg(long)]
    pub kernel: String,
    /// Grid shape in CTAs: X[,Y[,Z]].
    #[arg(long, default_value = "1")]
    pub grid: String,
    /// CTA shape in threads: X[,Y[,Z]].
    #[arg(long, default_value = "1")]
    pub block: String,
    /// Kernel arguments in parameter order (scalars `u32:7`, buffers `f32[N]:zero`).
    #[arg(long = "arg")]
    pub args: Vec<String>,
    /// Write buffer argument N's final bytes to PATH: N=PATH.
    #[arg(long = "dump")]
    pub dumps: Vec<String>,
    /// Bytes of dynamic shared memory.
    #[arg(long, default_value_t = 0)]
    pub shared_bytes: u32,
    /// Stop after this many warp instructions.
    #[arg(long, default_value_t = 1_000_000_000)]
    pub max_steps: u64,
    /// Host threads to run CTAs on (0: all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Print one JSON object describing the launch.
    #[arg(long)]
    pub json: bool,
}

/// Parses `X[,Y[,Z]]`.
fn shape(s: &str, what: &str) -> Result<[u32; 3]> {
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

/// Runs `ptxemu run`; returns the process exit code.
///
/// # Errors
/// Bad input: unreadable files, malformed arguments, parse or validation errors.
pub fn run(a: &RunArgs) -> Result<ExitCode> {
    let src = std::fs::read_to_string(&a.file)
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
    let block = shape(&a.block, "block")?;
    let specs: Vec<ArgSpec> = a
        .args
        .iter()
        .map(|s| argspec::parse(s).map_err(|e| anyhow!("--arg {e}")))
        .collect::<Result<_>>()?;
    let mut machine =
        Machine::load_with_source(&module, &name, &src).map_err(|e| anyhow!("{name}: {e}"))?;
    let Some(param_sizes) = machine.kernel_params(&a.kernel).map(<[u64]>::to_vec) else {
        let kernels: Vec<String> = module.kernels().map(|(_, f)| f.name.clone()).collect();
        bail!(
            "no kernel named `{}` in {name} (kernels: {})",
            a.kernel,
            kernels.join(", ")
        );
    };
    if param_sizes.len() != specs.len() {
        bail!(
            "kernel `{}` takes {} parameter(s) but {} --arg were given",
            a.kernel,
            param_sizes.len(),
            specs.len()
        );
    }
    let mut values: Vec<Vec<u8>> = Vec::with_capacity(specs.len());
    let mut buffers: Vec<Option<(u64, usize)>> = Vec::with_capacity(specs.len());
    for (i, (spec, psize)) in specs.iter().zip(&param_sizes).enumerate() {
        match spec {
            ArgSpec::Scalar { bytes, ty } => {
                if bytes.len() as u64 != *psize {
                    bail!(
                        "--arg {i}: a {} is {} byte(s) but parameter {i} of `{}` takes {psize}",
                        ty.name(),
                        bytes.len(),
                        a.kernel
                    );
                }
                values.push(bytes.clone());
                buffers.push(None);
            }
            ArgSpec::Buffer { .. } => {
                if *psize != 8 {
                    bail!("--arg {i}: a buffer passes a 64-bit address but parameter {i} of `{}` takes {psize} byte(s)", a.kernel);
                }
                let bytes = spec.buffer_bytes().map_err(|e| anyhow!("--arg {i}: {e}"))?;
                let addr = machine.alloc(bytes.len() as u64, &format!("argument {i}"));
                machine.write(addr, &bytes);
                values.push(addr.to_le_bytes().to_vec());
                buffers.push(Some((addr, bytes.len())));
            }
        }
    }
    let mut dumps = Vec::new();
    for d in &a.dumps {
        let (n, path) = d
            .split_once('=')
            .ok_or_else(|| anyhow!("--dump takes N=PATH, got `{d}`"))?;
        let n: usize = n
            .trim()
            .parse()
            .map_err(|_| anyhow!("--dump: `{n}` is not an argument index"))?;
        match buffers.get(n) {
            Some(Some(_)) => dumps.push((n, PathBuf::from(path))),
            Some(None) => bail!("--dump {n}: argument {n} is a scalar, not a buffer"),
            None => bail!("--dump {n}: there are only {} arguments", buffers.len()),
        }
    }
    let mut cfg = LaunchConfig::new(&a.kernel, grid, block);
    cfg.dynamic_shared = a.shared_bytes;
    cfg.max_steps = a.max_steps;
    cfg.threads = a.threads;
    let report = machine.launch(&cfg, &values).map_err(|e| anyhow!("{e}"))?;
    for (n, path) in &dumps {
        if let Some((addr, len)) = buffers[*n] {
            let bytes = machine.read(addr, len as u64).unwrap_or_default();
            std::fs::write(path, bytes)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    if a.json {
        let mut bufs = Vec::new();
        for (i, (spec, b)) in specs.iter().zip(&buffers).enumerate() {
            let (ArgSpec::Buffer { ty, count, .. }, Some((addr, len))) = (spec, b) else {
                continue;
            };
            let mut o = Map::new();
            o.insert("arg".into(), json!(i));
            o.insert("type".into(), json!(ty.name()));
            o.insert("count".into(), json!(count));
            o.insert("address".into(), json!(format!("0x{addr:x}")));
            if *count <= 4096 {
                let bytes = machine.read(*addr, *len as u64).unwrap_or_default();
                let vals: Vec<Json> = bytes
                    .chunks(ty.size())
                    .map(|c| json_value(ty.decode(c)))
                    .collect();
                o.insert("values".into(), Json::Array(vals));
            }
            bufs.push(Json::Object(o));
        }
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
            "kernel": a.kernel,
            "grid": grid,
            "block": block,
            "shared_bytes": a.shared_bytes,
            "warp_instructions": report.counts.warp_instructions,
            "thread_instructions": report.counts.thread_instructions,
            "wall_s": report.wall.as_secs_f64(),
            "stdout": String::from_utf8_lossy(&report.stdout),
            "faults": faults,
            "buffers": bufs,
        });
        println!("{out}");
    } else {
        use std::io::Write;
        std::io::stdout().write_all(&report.stdout).ok();
    }
    if let Some(f) = &report.fault {
        eprintln!("ptxemu: {f}");
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
