//! The kernels on which the GPU and ptxemu disagree: shrinking each to a smaller kernel that
//! still disagrees, and saving it with its input and both outputs for reproduction.

use std::path::Path;

use anyhow::Result;

use super::case::{self, Case};
use super::judge::Verdict;
use super::mma::Arch;
use super::record::Gpu;
use super::{input_of, run_emu_on, run_gpu, DifftestArgs, HostCommand};

/// A kernel on which the GPU and ptxemu disagree.
#[derive(Clone, Debug)]
pub(super) struct Mismatch {
    /// The kernel's index in the run.
    pub(super) index: u64,
    /// Its seed.
    pub(super) seed: u64,
    /// The difference (or why ptxemu could not run it).
    pub(super) what: String,
}

/// Whether ptxemu disagrees with the GPU on `k` (given the GPU's output).
fn disagrees(k: &Case, (arch, sm): (Arch, Option<u32>), input: &[u8], gpu: &[u8]) -> bool {
    let ptx = case::module(std::slice::from_ref(k), arch);
    match run_emu_on(&ptx, 1, input, sm).pop() {
        Some(Ok(out)) => matches!(k.compare(gpu, &out), Verdict::Differ(_)),
        _ => true,
    }
}

/// Shrinks a mismatching kernel: repeatedly keeps the first one-step-smaller kernel that still
/// disagrees (all candidates of a step run in one GPU module).
fn shrink(
    host: &HostCommand,
    dir: &Path,
    (mut k, arch, sm): (Case, Arch, Option<u32>),
    input: &[u8],
) -> Result<Case> {
    loop {
        let cands = k.shrink_candidates();
        if cands.is_empty() {
            return Ok(k);
        }
        let gpu = match run_gpu(host, dir, "shrink", (&cands, arch), input)? {
            Ok(g) => g,
            Err(_) => return Ok(k),
        };
        match cands
            .iter()
            .zip(&gpu)
            .find(|(c, g)| disagrees(c, (arch, sm), input, g))
        {
            Some((c, _)) => k = c.clone(),
            None => return Ok(k),
        }
    }
}

/// Shrinks mismatch `m` (with a host), and saves it under `dir` as `seed-S.ptx` with its input
/// (`.in.bin`), the GPU's and ptxemu's outputs (`.gpu.bin`, `.emu.bin`) and a description
/// (`.txt`); returns the files' common stem.
pub(super) fn save(
    a: &DifftestArgs,
    m: &Mismatch,
    host: Option<&HostCommand>,
    work: &Path,
    dir: &Path,
) -> Result<String> {
    let (arch, sm) = (a.arch, a.rec.gpu.map(Gpu::sm));
    let mut k = Case::generate(a.family, arch, m.seed);
    let input = input_of(a, m.index / a.per_module);
    if let Some(h) = host {
        k = shrink(h, work, (k, arch, sm), &input)?;
    }
    let ptx = case::module(std::slice::from_ref(&k), arch);
    let base = dir.join(format!("seed-{}", m.seed));
    std::fs::write(base.with_extension("ptx"), &ptx)?;
    std::fs::write(base.with_extension("in.bin"), &input)?;
    let emu = run_emu_on(&ptx, 1, &input, sm)
        .pop()
        .unwrap_or_else(|| Err("no result".into()));
    let mut text = format!(
        "kernel seed {} (run seed {}, kernel {}), shrunk to {} item(s)\n",
        m.seed,
        a.seed,
        m.index,
        k.size()
    );
    if let Some(h) = host {
        let one = (std::slice::from_ref(&k), arch);
        if let Ok(Ok(g)) = run_gpu(h, work, "final", one, &input) {
            std::fs::write(base.with_extension("gpu.bin"), &g[0])?;
            match &emu {
                Ok(e) => text.push_str(&match k.compare(&g[0], e) {
                    Verdict::Differ(d) => d,
                    v => format!("{v:?}"),
                }),
                Err(e) => text.push_str(e),
            }
        }
    } else if let Err(e) = &emu {
        text.push_str(e);
    }
    if let Ok(e) = &emu {
        std::fs::write(base.with_extension("emu.bin"), e)?;
    }
    text.push_str(&format!("\noriginal difference:\n{}\n", m.what));
    std::fs::write(base.with_extension("txt"), &text)?;
    Ok(base.display().to_string())
}
