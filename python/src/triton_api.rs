//! Triton's launch metadata, read by `emu::host::triton` (as `ptxemu run` reads it).

use std::path::Path;

use emu::host::triton::TritonMeta;
use pyo3::prelude::*;

fn meta(py: Python<'_>, text: &str, name: &str) -> PyResult<TritonMeta> {
    TritonMeta::parse(text, Path::new(name))
        .map_err(|e| crate::raise(py, "LaunchError", ("arguments", e)))
}

/// (kernel name, threads per CTA, dynamic shared bytes) from Triton metadata JSON text.
#[pyfunction]
pub fn triton_launch_meta(py: Python<'_>, text: &str, name: &str) -> PyResult<(String, u32, u32)> {
    let m = meta(py, text, name)?;
    Ok((m.name.clone(), m.threads(), m.shared))
}

/// The trailing scratch arguments Triton's launcher adds: for each, the bytes of the zeroed
/// buffer to pass, or 0 for a null pointer.
#[pyfunction]
pub fn triton_scratch(
    py: Python<'_>,
    text: &str,
    name: &str,
    params: Vec<u64>,
    given: usize,
    ctas: u64,
) -> PyResult<Vec<u64>> {
    meta(py, text, name)?
        .scratch(&params, given, ctas)
        .map_err(|e| crate::raise(py, "LaunchError", ("arguments", e)))
}
