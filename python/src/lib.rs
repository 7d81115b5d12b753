//! Python bindings of ptxemu (the `ptxemu._native` extension module).
//!
//! Thin by design: every behaviour lives in the Rust crates; this layer converts. The Python
//! package `ptxemu` (python/ptxemu) wraps it with numpy: dtypes, shapes, device arrays,
//! argument packing and the exception classes, which the bindings raise by name
//! (`raise`).

#![warn(missing_docs)]

mod device;
mod litmus_api;
mod module;
mod tensor_map_api;
mod triton_api;

use pyo3::prelude::*;

/// Raises the exception class `name` of `ptxemu._errors` with `args`.
pub(crate) fn raise<'py, A>(py: Python<'py>, name: &str, args: A) -> PyErr
where
    A: pyo3::call::PyCallArgs<'py>,
{
    let made = py
        .import("ptxemu._errors")
        .and_then(|m| m.getattr(name))
        .and_then(|cls| cls.call1(args));
    match made {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

/// The text of the file at `path`, its size checked before it is read (at most 128 MiB, as
/// the command line reads its inputs: `/dev/zero` is refused at once).
#[pyfunction]
fn read_text(py: Python<'_>, path: std::path::PathBuf) -> PyResult<String> {
    py.allow_threads(|| emu::host::read::read_text(&path))
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => pyo3::exceptions::PyValueError::new_err(format!(
                "{}: {e}",
                emu::front::error::printable(&path.display().to_string())
            )),
            _ => pyo3::exceptions::PyOSError::new_err(format!(
                "cannot read {}: {e}",
                emu::front::error::printable(&path.display().to_string())
            )),
        })
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<device::Device>()?;
    m.add_class::<module::Module>()?;
    m.add_function(wrap_pyfunction!(litmus_api::litmus_json, m)?)?;
    m.add_function(wrap_pyfunction!(litmus_api::explain, m)?)?;
    m.add_function(wrap_pyfunction!(litmus_api::explain_race_report, m)?)?;
    m.add_function(wrap_pyfunction!(triton_api::triton_launch_meta, m)?)?;
    m.add_function(wrap_pyfunction!(triton_api::triton_scratch, m)?)?;
    m.add_function(wrap_pyfunction!(tensor_map_api::encode_tensor_map, m)?)?;
    m.add_function(wrap_pyfunction!(read_text, m)?)?;
    Ok(())
}
