//! Triton's kernel metadata: what Triton's CUDA launcher takes from it to launch a kernel.
//!
//! * the kernel's `name`;
//! * the CTA shape: `num_warps * warp_size` threads in x (`warp_size` 32 when absent);
//! * dynamic shared memory: `shared` bytes (Triton declares `.extern .shared global_smem[]`);
//! * the trailing scratch-pointer parameters Triton appends to every kernel (global scratch,
//!   then profile scratch, since Triton 3.3; global scratch only before): a zeroed buffer of
//!   `size * CTAs` bytes when the metadata gives a size, else a null pointer.
//!
//! * clusters: `num_ctas` > 1 launches `num_ctas` × the grid's x CTAs in clusters of
//!   `num_ctas × 1 × 1`, as Triton's launcher does; scratch is sized per CTA of that grid.
//!
//! Not modelled: `launch_cooperative_grid` and `launch_pdl` (ptxemu runs every CTA of a grid
//! as if co-resident, and launches one after another), tensor descriptors (`tensordesc_meta`).

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

/// What a Triton `NAME.json` says about launching its kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TritonMeta {
    /// Where the metadata came from.
    pub path: PathBuf,
    /// The kernel's name (`name`).
    pub name: String,
    /// Warps per CTA (`num_warps`).
    pub num_warps: u32,
    /// Threads per warp (`warp_size`, 32 when absent).
    pub warp_size: u32,
    /// Dynamic shared memory in bytes (`shared`).
    pub shared: u32,
    /// CTAs per cluster (`num_ctas`, 1 when absent).
    pub num_ctas: u32,
    /// Global scratch bytes per CTA (`global_scratch_size`).
    pub global_scratch_size: u64,
    /// Profile scratch bytes per CTA (`profile_scratch_size`).
    pub profile_scratch_size: u64,
}

fn field_u64(v: &Json, key: &str, path: &Path) -> Result<Option<u64>, String> {
    match &v[key] {
        Json::Null => Ok(None),
        x => x.as_u64().map(Some).ok_or_else(|| {
            format!(
                "{}: `{key}` must be a non-negative integer, found {x}",
                path.display()
            )
        }),
    }
}

fn field_u32(v: &Json, key: &str, path: &Path) -> Result<Option<u32>, String> {
    field_u64(v, key, path)?
        .map(|n| {
            u32::try_from(n).map_err(|_| format!("{}: `{key}` = {n} is too large", path.display()))
        })
        .transpose()
}

/// Whether `s` is a PTX identifier (`[a-zA-Z_$%][a-zA-Z0-9_$]*`, or starting with a digit
/// after `_`/`$`/`%`): a kernel name the metadata gives must be one, so that it cannot carry
/// control bytes or text into messages.
fn is_ptx_name(s: &str) -> bool {
    let mut chars = s.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '_' | '$' | '%'));
    first_ok && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$'))
}

impl TritonMeta {
    /// Parses Triton metadata text read from `path`.
    ///
    /// # Errors
    /// Text that is not JSON, or lacks `name` or `num_warps`, or has fields of the wrong type,
    /// or asks for a cluster launch.
    pub fn parse(text: &str, path: &Path) -> Result<TritonMeta, String> {
        let v: Json =
            super::json::parse(text).map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
        let name = v["name"]
            .as_str()
            .ok_or_else(|| format!("{}: no kernel `name`", path.display()))?
            .to_string();
        if !is_ptx_name(&name) {
            return Err(format!(
                "{}: `name` {} is not a PTX identifier",
                path.display(),
                crate::front::error::clipped(&format!("{name:?}"), 80)
            ));
        }
        let warp_size = field_u32(&v, "warp_size", path)?.unwrap_or(32);
        if warp_size != 32 {
            return Err(format!(
                "{}: warp_size = {warp_size}, but NVIDIA GPUs (and ptxemu) run warps of 32 threads",
                path.display()
            ));
        }
        let num_warps = field_u32(&v, "num_warps", path)?
            .ok_or_else(|| format!("{}: no `num_warps`", path.display()))?;
        let num_ctas = field_u32(&v, "num_ctas", path)?.unwrap_or(1);
        if num_ctas == 0 {
            return Err(format!("{}: num_ctas = 0", path.display()));
        }
        Ok(TritonMeta {
            path: path.to_path_buf(),
            name,
            num_warps,
            warp_size,
            shared: field_u32(&v, "shared", path)?.unwrap_or(0),
            num_ctas,
            global_scratch_size: field_u64(&v, "global_scratch_size", path)?.unwrap_or(0),
            profile_scratch_size: field_u64(&v, "profile_scratch_size", path)?.unwrap_or(0),
        })
    }

    /// Threads per CTA.
    pub fn threads(&self) -> u32 {
        self.num_warps.saturating_mul(self.warp_size)
    }

    /// The CTA grid and cluster shape Triton's launcher makes of the grid `kernel[grid]` was
    /// given: with `num_ctas` > 1, x grows by `num_ctas` and clusters are `num_ctas × 1 × 1`
    /// (`None`: no cluster).
    ///
    /// # Errors
    /// A grid whose x times `num_ctas` overflows 32 bits.
    pub fn cta_grid(&self, grid: [u32; 3]) -> Result<([u32; 3], Option<[u32; 3]>), String> {
        if self.num_ctas == 1 {
            return Ok((grid, None));
        }
        let x = grid[0].checked_mul(self.num_ctas).ok_or_else(|| {
            format!(
                "{}: grid x {} × num_ctas {} overflows",
                self.path.display(),
                grid[0],
                self.num_ctas
            )
        })?;
        Ok(([x, grid[1], grid[2]], Some([self.num_ctas, 1, 1])))
    }

    /// The trailing scratch-pointer arguments Triton's launcher adds when the kernel takes
    /// the parameters `params` (sizes in bytes) and the caller gave `given` of them: for each
    /// missing one (one or two 64-bit parameters: global scratch, then profile scratch), the
    /// bytes of the zeroed buffer to pass, or 0 for a null pointer.
    ///
    /// # Errors
    /// More than two parameters missing, a missing one that is not 64-bit, or a scratch size
    /// too large.
    pub fn scratch(&self, params: &[u64], given: usize, ctas: u64) -> Result<Vec<u64>, String> {
        let missing = params.len().saturating_sub(given);
        if missing == 0 {
            return Ok(Vec::new());
        }
        if missing > 2 || params[given..].iter().any(|&s| s != 8) {
            return Err(format!(
                "kernel `{}` takes {} parameter(s) but {given} argument(s) were given; {} adds only its 1 or 2 trailing scratch pointers",
                self.name,
                params.len(),
                self.path.display()
            ));
        }
        [self.global_scratch_size, self.profile_scratch_size][..missing]
            .iter()
            .map(|size| {
                size.checked_mul(ctas).ok_or_else(|| {
                    format!(
                        "{}: scratch size {size} × {ctas} CTAs overflows",
                        self.path.display()
                    )
                })
            })
            .collect()
    }
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

    #[test]
    fn fields() {
        let m = meta(VECTOR_ADD);
        assert_eq!(
            (m.name.as_str(), m.threads(), m.shared),
            ("vector_add", 128, 0)
        );
    }

    #[test]
    fn scratch_pointers() {
        let mut m = meta(VECTOR_ADD);
        assert_eq!(m.scratch(&[4, 8, 8], 1, 6).unwrap(), [0, 0]);
        assert_eq!(m.scratch(&[4, 8, 8], 3, 6).unwrap(), Vec::<u64>::new());
        m.global_scratch_size = 16;
        assert_eq!(m.scratch(&[4, 8, 8], 1, 6).unwrap(), [96, 0]);
        assert!(m.scratch(&[4, 8, 8], 0, 1).is_err());
        assert!(m.scratch(&[4, 4], 1, 1).is_err());
    }

    #[test]
    fn bad_metadata() {
        let p = Path::new("k.json");
        assert!(TritonMeta::parse("{", p).is_err());
        assert!(TritonMeta::parse(r#"{"name": "k"}"#, p).is_err());
        assert!(TritonMeta::parse(r#"{"name": "k", "num_warps": -1}"#, p).is_err());
        assert!(TritonMeta::parse(r#"{"name": "k", "num_warps": 4, "num_ctas": 0}"#, p).is_err());
    }

    #[test]
    fn clusters_as_tritons_launcher_makes_them() {
        let m = TritonMeta::parse(
            r#"{"name": "k", "num_warps": 4, "num_ctas": 2}"#,
            Path::new("k.json"),
        )
        .unwrap();
        assert_eq!(m.cta_grid([3, 2, 1]).unwrap(), ([6, 2, 1], Some([2, 1, 1])));
        assert_eq!(
            meta(VECTOR_ADD).cta_grid([3, 2, 1]).unwrap(),
            ([3, 2, 1], None)
        );
        assert!(m.cta_grid([u32::MAX, 1, 1]).is_err());
    }

    #[test]
    fn metadata_that_contradicts_the_gpu_or_hides_text_is_refused() {
        let p = Path::new("k.json");
        let e = TritonMeta::parse(r#"{"name": "k", "num_warps": 4, "warp_size": 8}"#, p);
        assert!(e.unwrap_err().contains("warp_size = 8"));
        let e = TritonMeta::parse("{\"name\": \"k\\u001b[2J\", \"num_warps\": 4}", p);
        let e = e.unwrap_err();
        assert!(
            e.contains("not a PTX identifier") && !e.contains('\u{1b}'),
            "{e:?}"
        );
        let e = TritonMeta::parse(r#"{"name": "k", "num_warps": 4, "name": "j"}"#, p);
        assert!(e.unwrap_err().contains("duplicate key `name`"));
    }
}
