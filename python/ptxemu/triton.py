"""Triton on ptxemu: the target Triton compiles for and the GPU whose numerics run it
(`set_target`), and launching what ``triton.compile(...)`` returns (`launch`).

With ``pip install ptxemu``, Triton finds ptxemu's back end (``ptxemu.triton_backend``) through
its ``triton.backends`` entry point: with no GPU present (or ``TRITON_DEFAULT_BACKEND=ptxemu``),
a ``kernel[grid]`` call compiles for `target()` and runs on ptxemu (docs/triton.md).

``launch(compiled_kernel, grid, *args)`` runs the kernel's PTX (``compiled_kernel.asm["ptx"]``)
with what Triton's CUDA launcher takes from ``compiled_kernel.metadata`` (read by the same code
as ``ptxemu run`` reading Triton's ``NAME.json``): the kernel name, ``num_warps × warp_size``
threads per CTA, ``shared`` bytes of dynamic shared memory, and the trailing global/profile
scratch pointers (a zeroed buffer of ``size × CTAs`` bytes, or null). ``args`` are the values of
the kernel's non-constexpr parameters, as for ``Function.__call__``; keywords too.
"""

import json
import os

import numpy as np

from ._device import DeviceArray, default_device
from ._module import Module, _shape
from . import _native

_MODULES = {}

#: The targets Triton compiles for, and their compute capability.
TARGETS = {"sm_80": 80, "sm_90a": 90, "sm_100a": 100}
#: The GPUs whose numerics ptxemu emulates, and the target each is the default GPU of.
GPUS = {"a100": "sm_80", "h100": "sm_90a", "b200": "sm_100a"}


class _Config:
    """What `set_target` chose (else PTXEMU_TARGET / PTXEMU_GPU / PTXEMU_MEMORY_LIMIT)."""

    def __init__(self):
        self.target = None
        self.gpu = None
        self.memory_limit = None
        self.device = None


_CONFIG = _Config()


def _env_choice(var, choices):
    v = os.environ.get(var)
    if v is None or v == "":
        return None
    if v not in choices:
        from ._errors import Error
        raise Error(f"{var}={v}: expected one of {', '.join(choices)}")
    return v


def target():
    """The target Triton compiles for: `set_target`'s, else ``PTXEMU_TARGET``, else sm_80."""
    return _CONFIG.target or _env_choice("PTXEMU_TARGET", TARGETS) or "sm_80"


def gpu():
    """The GPU whose numerics launches get: `set_target`'s, else ``PTXEMU_GPU``, else the
    target's own (sm_80 → a100, sm_90a → h100, sm_100a → b200)."""
    t = target()
    g = _CONFIG.gpu or _env_choice("PTXEMU_GPU", GPUS)
    return g or next(k for k, v in GPUS.items() if v == t)


def memory_limit():
    """The most bytes of scratch memory one launch may ask for: `set_target`'s, else
    ``PTXEMU_MEMORY_LIMIT`` (bytes), else the machine's memory."""
    if _CONFIG.memory_limit is not None:
        return _CONFIG.memory_limit
    v = os.environ.get("PTXEMU_MEMORY_LIMIT")
    if v:
        try:
            return int(v)
        except ValueError:
            from ._errors import Error
            raise Error(f"PTXEMU_MEMORY_LIMIT={v}: expected a number of bytes") from None
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return 1 << 40


def device():
    """The `Device` whose memory Triton launches use (`set_target`'s, else the default)."""
    return _CONFIG.device or default_device()


def set_target(target=None, gpu=None, *, memory_limit=None, device=None):
    """Chooses what a Triton ``kernel[grid]`` call compiles for and runs on.

    target: ``"sm_80"``, ``"sm_90a"`` or ``"sm_100a"``, what Triton compiles for (default: the
    ``PTXEMU_TARGET`` environment variable, else sm_80). gpu: ``"a100"``, ``"h100"`` or
    ``"b200"``, whose numerics the launches get (default ``PTXEMU_GPU``, else the target's).
    memory_limit: the most bytes of scratch memory a launch may ask for. device: the `Device`
    whose memory the launches use. Arguments left out keep their value.

    Kernels compiled for one target are cached apart from the others' (each target is its own
    Triton device), so switching back and forth does not recompile.
    """
    from ._device import Device
    if target is not None and target not in TARGETS:
        raise ValueError(f"target `{target}`: expected one of {', '.join(TARGETS)}")
    if gpu is not None and gpu not in GPUS:
        raise ValueError(f"gpu `{gpu}`: expected one of {', '.join(GPUS)}")
    if memory_limit is not None and (not isinstance(memory_limit, int) or memory_limit < 0):
        raise ValueError(f"memory_limit `{memory_limit}`: expected a number of bytes")
    if device is not None and not isinstance(device, Device):
        raise TypeError(f"device: expected a ptxemu.Device, got {type(device).__name__}")
    if target is not None:
        _CONFIG.target = target
    if gpu is not None:
        _CONFIG.gpu = gpu
    if memory_limit is not None:
        _CONFIG.memory_limit = memory_limit
    if device is not None:
        _CONFIG.device = device


def _metadata_json(md):
    if isinstance(md, (str, bytes)):
        return md if isinstance(md, str) else md.decode()
    if hasattr(md, "_asdict"):
        md = md._asdict()
    elif not isinstance(md, dict):
        md = vars(md)
    return json.dumps(md, default=lambda o: o._asdict() if hasattr(o, "_asdict") else str(o))


def module_of(compiled_kernel, gpu=None):
    """The ptxemu Module of a compiled Triton kernel run as `gpu` (made once per PTX text and
    GPU)."""
    ptx = compiled_kernel.asm["ptx"]
    name = getattr(compiled_kernel, "name", None) or "triton"
    return _module(ptx, name, gpu)


def _module(ptx, name, gpu):
    if isinstance(ptx, bytes):
        ptx = ptx.decode()
    m = _MODULES.get((ptx, gpu))
    if m is None:
        m = _MODULES[(ptx, gpu)] = Module(ptx, name=f"<triton {name}>", gpu=gpu)
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
