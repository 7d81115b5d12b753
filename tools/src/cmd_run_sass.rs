//! `ptxemu run --isa sass`: a SPA 5.0 SASS program over a grid, with the same `--arg`,
//! `--dump` and `--json` interface as PTX. Parameters are laid out in constant bank 0 from
//! byte 0x140 (a buffer's 64-bit address as two words, low first). `--json` adds every
//! thread's final registers for launches of at most 128 threads. Memory errors (misaligned
//! with `--strict-align`, out of window, unallocated) are reported and the run continues;
//! with `--strict` the first one stops it. Exit status: 0 clean, 1 when errors were reported
//! or the program faulted, 2 for bad input.

use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use emu::sass::exec::{SassFault, Windows};
use emu::sass::{parse_program, SassConfig, SassMachine};
use serde_json::{json, Value as Json};

use crate::cmd_run::{buffers_json, dumps_of, lay_out, shape, specs_of, write_dumps, RunArgs};

/// Options of SASS runs.
#[derive(Args, Debug, Default)]
pub struct SassOptions {
    /// Stop at the first memory error (default: report it, read 0, go on).
    #[arg(long)]
    pub strict: bool,
    /// Report misaligned addresses as errors (they are always forced down to the access size).
    #[arg(long)]
    pub strict_align: bool,
    /// Report `LD.U.128` addresses that differ across a warp.
    #[arg(long)]
    pub check_uniform: bool,
    /// The shared window of the generic address space: BASE:SIZE (default 0x1000000:0xc000).
    #[arg(long, value_name = "BASE:SIZE")]
    pub shared_window: Option<String>,
    /// The local window, SIZE bytes per thread: BASE:SIZE (default 0x2000000:0x4000).
    #[arg(long, value_name = "BASE:SIZE")]
    pub local_window: Option<String>,
    /// Registers the shader has: a base register at or beyond it reads as absent (default 255).
    #[arg(long, value_name = "N")]
    pub registers: Option<u32>,
}

fn window(s: &str, what: &str) -> Result<(u64, u64)> {
    let num = |x: &str| {
        let x = x.trim();
        match x.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).ok(),
            None => x.parse().ok(),
        }
    };
    let (b, z) = s
        .split_once(':')
        .ok_or_else(|| anyhow!("--{what} takes BASE:SIZE, got `{s}`"))?;
    match (num(b), num(z)) {
        (Some(b), Some(z)) if z > 0 && z <= 1 << 24 && b.checked_add(z).is_some() => Ok((b, z)),
        _ => bail!("--{what}: `{s}` is not BASE:SIZE with 0 < SIZE <= 16 MiB"),
    }
}

/// The configuration the options describe.
pub fn config(a: &RunArgs) -> Result<SassConfig> {
    let mut cfg = SassConfig::new(
        shape(a.grid.as_deref().unwrap_or("1"), "grid")?,
        shape(a.block.as_deref().unwrap_or("1"), "block")?,
    );
    let o = &a.sass;
    cfg.strict = o.strict;
    cfg.strict_align = o.strict_align;
    cfg.check_uniform = o.check_uniform;
    cfg.registers = o.registers.unwrap_or(255).min(255);
    cfg.max_steps = a.max_steps;
    cfg.timeout = crate::timeout::duration(a.timeout);
    let mut w = Windows::default();
    if let Some(s) = &o.shared_window {
        (w.shared_base, w.shared_size) = window(s, "shared-window")?;
    }
    if let Some(s) = &o.local_window {
        (w.local_base, w.local_size) = window(s, "local-window")?;
    }
    let overlap =
        w.shared_base < w.local_base + w.local_size && w.local_base < w.shared_base + w.shared_size;
    if overlap {
        bail!("the shared and local windows overlap");
    }
    cfg.windows = w;
    Ok(cfg)
}

/// Runs the program.
pub fn run(a: &RunArgs) -> Result<ExitCode> {
    let file = a
        .file
        .as_deref()
        .ok_or_else(|| anyhow!("a SASS file is required"))?;
    let src = crate::source::read_source(file)
        .with_context(|| format!("cannot read {}", file.display()))?;
    let name = file.display().to_string();
    let prog = match parse_program(&src) {
        Ok(p) => p,
        Err(e) => return Err(crate::launch::shown("parse", e.render(&src, &name))),
    };
    let cfg = config(a)?;
    let specs = specs_of(&a.args)?;
    let mut parts = crate::memlimit::buffer_parts(&specs);
    parts.push(("the shared window".into(), cfg.windows.shared_size));
    parts.push(("the local window".into(), cfg.windows.local_size));
    crate::memlimit::check(crate::memlimit::limit(a.memory_limit), &parts)?;
    let mut machine = SassMachine::with_limit(crate::memlimit::limit(a.memory_limit));
    let laid = lay_out(&specs, &[], |contents, _| {
        let addr = machine
            .alloc(contents.len() as u64)
            .map_err(crate::launch::memory)?;
        contents.write_with(|off, b| machine.write(addr + off, b));
        Ok(addr)
    })?;
    let dumps = dumps_of(&a.dumps, &laid)?;
    let result = machine.launch(&prog, &cfg, &laid.values);
    if let Err(f @ SassFault::TimedOut { .. }) = &result {
        // As for PTX: no result, so no dumps and no buffers.
        if a.json {
            outln!(
                "{}",
                json!({ "isa": "sass", "program": name, "stopped_by_timeout": true,
                "faults": [f.to_string()] })
            );
        }
        errln!("ptxemu: {name}: {f}");
        return Ok(ExitCode::from(3));
    }
    let dumped = write_dumps(&dumps, |addr, out| machine.read_into(addr, out));
    let (report, fault) = match result {
        Ok(r) => (Some(r), None),
        Err(SassFault::Shape(m)) => bail!("{m}"),
        Err(f) => (None, Some(f)),
    };
    let errors: Vec<String> = report
        .iter()
        .flat_map(|r| r.errors.iter().map(ToString::to_string))
        .collect();
    if a.json {
        let threads: Vec<Json> = report
            .iter()
            .flat_map(|r| &r.threads)
            .map(|t| {
                json!({
                    "cta": t.cta,
                    "tid": t.tid,
                    "regs": t.regs.iter().map(|v| format!("0x{v:08x}")).collect::<Vec<_>>(),
                    "preds": t.preds,
                })
            })
            .collect();
        let out = json!({
            "isa": "sass",
            "program": name,
            "grid": cfg.grid,
            "block": cfg.block,
            "thread_instructions": report.as_ref().map_or(0, |r| r.instructions),
            "errors": errors,
            "faults": fault.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "buffers": buffers_json(&specs, &[], &laid, |addr, len| machine.read(addr, len)),
            "threads": threads,
        });
        outln!("{out}");
    }
    for e in &errors {
        errln!("ptxemu: {name}: {e}");
    }
    if let Some(f) = &fault {
        errln!("ptxemu: {name}: {f}");
    }
    let status = u8::from(fault.is_some() || !errors.is_empty());
    Ok(ExitCode::from(crate::cmd_run::after_dumps(status, dumped)))
}
