"""ptxemu for Python: run PTX kernels on numpy arrays without a GPU.

    import numpy as np, ptxemu
    m = ptxemu.Module("tests/fixtures/kernels/saxpy/nvcc-O3.ptx")  # saxpy(n, a, *x, *y)
    x, y = np.ones(1000, np.float32), np.arange(1000, dtype=np.float32)
    m.get_function("saxpy")(4, 256, (x.size, np.float32(2), x, y))  # y = 2x + y, in place

A `Device` holds global memory that persists across launches (`to_device`, `zeros`,
`copy_to_host`); numpy arrays passed straight to a kernel are copied in and back out around
the launch. Faults raise `Fault`, with the fields of ``ptxemu run --json``. Litmus tests run
with `litmus` and are explained with `explain`. Triton kernels launch with
`ptxemu.triton.launch`. Tensor maps are made as the driver makes them (`TensorMap`), and
by-value structs holding device addresses and maps (a CUTLASS kernel's Params) with `Struct`.
"""

from ._errors import (DeviceMemoryError, Error, Fault, LaunchError, LitmusError, PtxError,
                      RaceError, RaceReportError, RaceWarning, TensorMapError, VariableError)
from ._device import Device, DeviceArray, default_device
from ._module import Function, LaunchStats, Module
from ._tensor_map import Struct, TensorMap
from ._litmus import explain, explain_races, litmus

__all__ = [
    "Device", "DeviceArray", "default_device", "Module", "Function", "LaunchStats",
    "TensorMap", "Struct",
    "Error", "Fault", "LaunchError", "LitmusError", "PtxError", "TensorMapError", "VariableError",
    "DeviceMemoryError", "RaceError", "RaceWarning", "RaceReportError",
    "litmus", "explain", "explain_races",
]
