"""Launching what ``triton.compile(...)`` returns, without a GPU.

``launch(compiled_kernel, grid, *args)`` runs the kernel's PTX (``compiled_kernel.asm["ptx"]``)
with what Triton's CUDA launcher takes from ``compiled_kernel.metadata`` (read by the same code
as ``ptxemu run`` reading Triton's ``NAME.json``): the kernel name, ``num_warps × warp_size``
threads per CTA, ``shared`` bytes of dynamic shared memory, and the trailing global/profile
scratch pointers (a zeroed buffer of ``size × CTAs`` bytes, or null). ``args`` are the values of
the kernel's non-constexpr parameters, as for ``Function.__call__``; keywords too.
"""

import json

import numpy as np

from ._device import DeviceArray
from ._module import Module, _shape
from . import _native

_MODULES = {}


def _metadata_json(md):
    if isinstance(md, (str, bytes)):
        return md if isinstance(md, str) else md.decode()
    if hasattr(md, "_asdict"):
        md = md._asdict()
    elif not isinstance(md, dict):
        md = vars(md)
    return json.dumps(md, default=lambda o: o._asdict() if hasattr(o, "_asdict") else str(o))


def module_of(compiled_kernel):
    """The ptxemu Module of a compiled Triton kernel (made once per PTX text)."""
    ptx = compiled_kernel.asm["ptx"]
    if isinstance(ptx, bytes):
        ptx = ptx.decode()
    m = _MODULES.get(ptx)
    if m is None:
        name = getattr(compiled_kernel, "name", None) or "triton"
        m = _MODULES[ptx] = Module(ptx, name=f"<triton {name}>")
    return m


def launch(compiled_kernel, grid, *args, device=None, **options):
    """Launches a compiled Triton kernel over `grid` (an int or a tuple of up to 3); returns the
    launch's `LaunchStats` and raises `Fault` when it faults."""
    text = _metadata_json(compiled_kernel.metadata)
    where = "<triton metadata>"
    kernel, threads, shared = _native.triton_launch_meta(text, where)
    module = module_of(compiled_kernel)
    f = module.get_function(kernel)
    grid = _shape(grid, "grid")
    ctas = grid[0] * grid[1] * grid[2]
    sizes = [p[2] for p in f.params]
    scratch = _native.triton_scratch(text, where, sizes, len(args), ctas)
    if device is None:
        device = next((a.device for a in args if isinstance(a, DeviceArray)), None)
    device = module._device(device)
    extra = [device.zeros(n, np.uint8) if n else 0 for n in scratch]
    return f(grid, threads, tuple(args) + tuple(extra), shared_mem=shared, device=device,
             **options)
