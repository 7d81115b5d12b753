//! `ptxemu.TensorMap`'s encoder: the driver's `cuTensorMapEncodeTiled` /
//! `cuTensorMapEncodeIm2col` parameters checked and encoded by `emu::host::tensor_map`.

use emu::host::tensor_map::{encode, with_address, EncodeParams};
use emu::semantics::tma::Dtype;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::raise;

/// The 128 bytes of a tensor map at global address `address`, from the driver's parameters
/// (lists dimension 0 first; the enums by their `CUtensorMap*` numbers; `dtype` by its PTX
/// name). Raises `ptxemu.TensorMapError` naming the parameter a requirement refuses.
#[pyfunction]
#[pyo3(signature = (im2col, dtype, address, dims, strides, boxes, estrides, interleave, swizzle, l2, oob, lower=None, upper=None, channels=None, pixels=None))]
#[allow(clippy::too_many_arguments)]
pub fn encode_tensor_map<'py>(
    py: Python<'py>,
    im2col: bool,
    dtype: &str,
    address: u64,
    dims: Vec<i64>,
    strides: Vec<i64>,
    boxes: Vec<i64>,
    estrides: Option<Vec<i64>>,
    interleave: u32,
    swizzle: u32,
    l2: u32,
    oob: u32,
    lower: Option<Vec<i64>>,
    upper: Option<Vec<i64>>,
    channels: Option<i64>,
    pixels: Option<i64>,
) -> PyResult<Bound<'py, PyBytes>> {
    let p = EncodeParams {
        im2col,
        dtype: Dtype::from_name(dtype),
        dims,
        strides,
        boxes,
        estrides,
        lower,
        upper,
        channels,
        pixels,
        interleave,
        swizzle,
        l2,
        oob,
    };
    if p.dtype.is_none() {
        return Err(raise(
            py,
            "TensorMapError",
            (format!("tensorDataType `{dtype}` is not one ptxemu knows"),),
        ));
    }
    let m = encode(&p)
        .and_then(|m| with_address(m, address))
        .map_err(|e| raise(py, "TensorMapError", (e,)))?;
    Ok(PyBytes::new(py, &m.encode()))
}
