//! Triton's kernel metadata for `ptxemu run`: when `NAME.json` sits beside `NAME.ptx` (as
//! Triton's cache writes them), the launch takes from it what Triton's launcher would.
//!
//! * the kernel: `name`, when `--kernel` is not given;
//! * the CTA shape: `num_warps * warp_size` threads in x, when `--block` is not given;
//! * dynamic shared memory: `shared` bytes (Triton declares `.extern .shared global_smem[]`),
//!   when `--shared-bytes` is not given;
//! * the trailing scratch-pointer parameters Triton appends to every kernel (global scratch,
//!   then profile scratch, since Triton 3.3; global scratch only before): a zeroed buffer of
//!   `size * CTAs` bytes when the metadata gives a size, else a null pointer, exactly as
//!   Triton's CUDA launcher allocates them.
//!
//! A value the user gives that contradicts the metadata is an error, not a silent choice.
//! * clusters: with `num_ctas` > 1, `--grid` is the grid `kernel[grid]` was given; the launch
//!   has `num_ctas` times as many CTAs in x, in clusters of `num_ctas × 1 × 1` (a `--cluster`
//!   that says otherwise is an error).
//!
//! A `NAME.json` that is not Triton's metadata is ignored with a note when `--kernel` and
//! `--block` are given. Not modelled: `launch_cooperative_grid` and `launch_pdl` (reported, not
//! acted on), tensor descriptors (`tensordesc_meta`).

use std::path::Path;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value as Json};

use crate::argspec::{self, ArgSpec};
pub use emu::host::triton::TritonMeta;

/// Reads `NAME.json` beside `NAME.ptx`, if there is one. A JSON object that is not Triton's
/// metadata (no `name` or no `num_warps`) is ignored, with a note on stderr, when the launch
/// needs nothing from it (`explicit`: `--kernel` and `--block` were given).
///
/// # Errors
/// The file exists but cannot be read or parsed, or is not Triton's metadata and the launch
/// is not explicit.
pub fn beside(ptx: &Path, explicit: bool) -> Result<Option<TritonMeta>> {
    let path = ptx.with_extension("json");
    if !path.is_file() {
        return Ok(None);
    }
    let text = crate::bounded::read_text(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    if explicit && !is_triton_metadata(&text) {
        eprintln!(
            "ptxemu: note: {} is not Triton's kernel metadata (no `name` or `num_warps`); ignored, since --kernel and --block are given",
            path.display()
        );
        return Ok(None);
    }
    TritonMeta::parse(&text, &path)
        .map(Some)
        .map_err(anyhow::Error::msg)
}

/// Whether JSON text looks like Triton's metadata: an object with `name` and `num_warps`.
fn is_triton_metadata(text: &str) -> bool {
    serde_json::from_str::<Json>(text)
        .map(|v| v.get("name").is_some() && v.get("num_warps").is_some())
        .unwrap_or(false)
}

/// The launch settings after the metadata is applied, and a record of what came from it.
#[derive(Debug)]
pub struct Applied {
    /// The kernel to launch.
    pub kernel: String,
    /// The CTA shape, as `X[,Y[,Z]]` text.
    pub block: String,
    /// Dynamic shared memory bytes.
    pub shared_bytes: u32,
    /// What the metadata supplied, for `--json` (`null` without metadata).
    pub report: Json,
}

/// The user's launch settings: `None` where an option was not given.
pub struct Given<'a> {
    /// `--kernel`
    pub kernel: Option<&'a str>,
    /// `--block`
    pub block: Option<&'a str>,
    /// `--shared-bytes`
    pub shared_bytes: Option<u32>,
}

/// Fills the launch settings the user left out from `meta`.
///
/// # Errors
/// A given `--kernel`, `--block` or `--shared-bytes` that contradicts the metadata.
pub fn apply(meta: &TritonMeta, given: &Given<'_>) -> Result<Applied> {
    let kernel = match given.kernel {
        Some(k) if k != meta.name => bail!(
            "--kernel {k}, but {} describes kernel `{}`",
            meta.path.display(),
            meta.name
        ),
        _ => meta.name.clone(),
    };
    let threads = meta.threads();
    let block = match given.block {
        Some(b) => {
            let s = crate::cmd_run::shape(b, "block")?;
            if s.iter().product::<u32>() != threads {
                bail!(
                    "--block {b}, but {} says num_warps = {} ({threads} threads per CTA)",
                    meta.path.display(),
                    meta.num_warps
                );
            }
            b.to_string()
        }
        None => threads.to_string(),
    };
    let shared_bytes = match given.shared_bytes {
        Some(n) if n < meta.shared => bail!(
            "--shared-bytes {n}, but {} says the kernel uses {} bytes of shared memory",
            meta.path.display(),
            meta.shared
        ),
        Some(n) => n,
        None => meta.shared,
    };
    let report = json!({
        "file": meta.path.display().to_string(),
        "kernel": given.kernel.is_none(),
        "block": given.block.is_none(),
        "shared_bytes": given.shared_bytes.is_none(),
        "num_warps": meta.num_warps,
        "num_ctas": meta.num_ctas,
        "shared": meta.shared,
        "scratch_args": [],
    });
    Ok(Applied {
        kernel,
        block,
        shared_bytes,
        report,
    })
}

/// Appends Triton's trailing scratch-pointer arguments when the kernel takes `params`
/// parameters and the user gave `specs.len()` of them: one or two extra 64-bit parameters
/// (global scratch, then profile scratch). Returns the specs added, as text, for `--json`.
///
/// # Errors
/// More than two parameters missing, or a scratch size too large for one buffer.
pub fn add_scratch(
    meta: &TritonMeta,
    params: &[u64],
    specs: &mut Vec<ArgSpec>,
    ctas: u64,
) -> Result<Vec<String>> {
    let sizes = meta
        .scratch(params, specs.len(), ctas)
        .map_err(anyhow::Error::msg)?;
    let mut added = Vec::new();
    for bytes in sizes {
        let text = match bytes {
            0 => "u64:0".to_string(),
            n => format!("u8[{n}]:zero"),
        };
        specs.push(argspec::parse(&text).map_err(|e| anyhow::anyhow!("scratch argument: {e}"))?);
        added.push(text);
    }
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VECTOR_ADD: &str = r#"{"hash": "b9", "target": {"backend": "cuda", "arch": 80, "warp_size": 32},
        "num_warps": 4, "num_ctas": 1, "num_stages": 3, "warp_size": 32, "shared": 0,
        "global_scratch_size": 0, "global_scratch_align": 1, "profile_scratch_size": 0,
        "profile_scratch_align": 1, "name": "vector_add"}"#;

    fn meta(text: &str) -> TritonMeta {
        TritonMeta::parse(text, Path::new("k.json")).unwrap()
    }

    const NONE: Given<'static> = Given {
        kernel: None,
        block: None,
        shared_bytes: None,
    };

    #[test]
    fn fills_what_is_missing() {
        let m = meta(VECTOR_ADD);
        let a = apply(&m, &NONE).unwrap();
        assert_eq!(
            (a.kernel.as_str(), a.block.as_str(), a.shared_bytes),
            ("vector_add", "128", 0)
        );
        assert_eq!(a.report["block"], true);
    }

    #[test]
    fn contradictions_are_errors() {
        let m = meta(VECTOR_ADD);
        let wrong_block = Given {
            block: Some("64"),
            ..NONE
        };
        assert!(apply(&m, &wrong_block).is_err());
        let same_block = Given {
            block: Some("32,4"),
            ..NONE
        };
        assert_eq!(apply(&m, &same_block).unwrap().block, "32,4");
        let wrong_kernel = Given {
            kernel: Some("other"),
            ..NONE
        };
        assert!(apply(&m, &wrong_kernel).is_err());
        let mut with_smem = m.clone();
        with_smem.shared = 4096;
        let too_little = Given {
            shared_bytes: Some(1024),
            ..NONE
        };
        assert!(apply(&with_smem, &too_little).is_err());
    }

    #[test]
    fn scratch_pointers() {
        let mut m = meta(VECTOR_ADD);
        let mut specs = vec![argspec::parse("u32:7").unwrap()];
        let added = add_scratch(&m, &[4, 8, 8], &mut specs, 6).unwrap();
        assert_eq!(added, ["u64:0", "u64:0"]);
        assert_eq!(specs.len(), 3);
        m.global_scratch_size = 16;
        let mut specs = vec![argspec::parse("u32:7").unwrap()];
        let added = add_scratch(&m, &[4, 8, 8], &mut specs, 6).unwrap();
        assert_eq!(added, ["u8[96]:zero", "u64:0"]);
        let mut specs = vec![];
        assert!(add_scratch(&m, &[4, 8, 8], &mut specs, 1).is_err());
    }
}
