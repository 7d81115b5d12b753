"""ptxemu's Triton driver: the current device and target, device properties, loading PTX, and
the launcher that runs a compiled kernel on ptxemu.

The driver is active when NVIDIA's is not (no GPU) or when ``TRITON_DEFAULT_BACKEND=ptxemu``.
Each target (sm_80, sm_90a, sm_100a) is one Triton device: Triton keeps compiled kernels per
device, so switching targets with `ptxemu.triton.set_target` compiles for the new target and
keeps the old target's kernels for when it comes back.

The launcher does what NVIDIA's C launcher does, in Python: drops constexpr arguments, flattens
tuples, expands host tensor descriptors (a 128-byte tensor map in ptxemu's encoding, from sm_90;
pointer, shapes and strides on sm_80), appends the global and profile scratch pointers (from
the allocator ``triton.set_allocator`` installed, else zeroed ptxemu memory), and launches
``num_warps × 32`` threads per CTA with ``shared`` bytes of dynamic shared memory, in clusters
of ``num_ctas`` CTAs. numpy arrays and CPU torch tensors are copied in and back around the
launch (`ptxemu._host_arrays`).
"""

import os
import struct
import sys

import numpy as np

import triton
from triton.backends.driver import (DriverBase, expand_signature, wrap_handle_tensordesc_impl,
                                    decompose_descriptor)
from triton.backends.compiler import GPUTarget
from triton.runtime import _allocation

from .. import triton as _config
from .._device import DeviceArray
from .._errors import LaunchError
from .._host_arrays import HostCopies
from . import _claim, _numpy_arguments

#: Triton device numbers: one per target.
_TARGET_ORDER = ("sm_80", "sm_90a", "sm_100a")

#: What Triton reads of a device: shared memory per CTA (opt-in maximum), SMs, registers.
_GPU_PROPERTIES = {
    "a100": {"max_shared_mem": 166912, "multiprocessor_count": 108},
    "h100": {"max_shared_mem": 232448, "multiprocessor_count": 132},
    "b200": {"max_shared_mem": 232448, "multiprocessor_count": 148},
}

#: Milliseconds of emulation spent in launches so far (what do_bench's events measure).
_EMULATED = {"ms": 0.0}


class _Kernel:
    """What `load_binary` hands Triton as the kernel's function: its PTX and name (the ptxemu
    module is made at launch, for the GPU chosen then)."""

    __slots__ = ("ptx", "name")

    def __init__(self, ptx, name):
        self.ptx = ptx
        self.name = name

    def __repr__(self):
        return f"<ptxemu Triton kernel {self.name}>"


class PtxemuUtils:
    """The driver's ``utils``: what Triton's compiler and JIT call besides the driver."""

    def load_binary(self, name, kernel, shared, device):
        ptx = kernel.decode() if isinstance(kernel, (bytes, bytearray)) else kernel
        k = _Kernel(ptx, name)
        return k, k, 0, 0, 1024

    def unload_module(self, module):
        pass

    def get_device_properties(self, device):
        g = _config.gpu()
        props = dict(_GPU_PROPERTIES[g])
        props.update({"max_num_regs": 65536, "warpSize": 32, "sm_clock_rate": 0,
                      "mem_clock_rate": 0, "mem_bus_width": 0})
        return props


class _Event:
    """An event of do_bench: the emulation time spent in launches when it was recorded."""

    def __init__(self, enable_timing=True):
        self.at = None

    def record(self, stream=None):
        self.at = _EMULATED["ms"]

    def elapsed_time(self, end):
        return end.at - self.at

    def synchronize(self):
        pass


class _DeviceInterface:
    """The ``torch.cuda``-like object Triton's do_bench uses: launches are synchronous."""

    Event = _Event

    @staticmethod
    def synchronize(device=None):
        pass


class PtxemuDriver(DriverBase):
    """Runs Triton kernels on ptxemu."""

    def __init__(self):
        super().__init__()
        _claim.take_cuda()
        _numpy_arguments.install()
        self.utils = PtxemuUtils()
        self.launcher_cls = PtxemuLauncher

    @classmethod
    def is_active(cls):
        chosen = os.environ.get("TRITON_DEFAULT_BACKEND")
        if chosen:
            return chosen == "ptxemu"
        import triton.backends as tb
        nv = tb.backends.get("nvidia")
        try:
            return nv is None or not nv.driver.is_active()
        except Exception:
            return True

    def get_current_device(self):
        return _TARGET_ORDER.index(_config.target())

    def set_current_device(self, device):
        _config.set_target(_TARGET_ORDER[device])

    def get_current_stream(self, device=None):
        return 0

    def get_current_target(self):
        return GPUTarget("cuda", _config.TARGETS[_config.target()], 32)

    def get_active_torch_device(self):
        import torch
        return torch.device("cpu")

    def get_device_interface(self):
        return _DeviceInterface

    def map_python_to_cpp_type(self, ty):
        from triton.backends.nvidia import driver as nv
        return nv.ty_to_cpp(ty)

    def get_benchmarker(self):
        from triton.testing import do_bench
        return do_bench

    def get_empty_cache_for_benchmark(self):
        return None

    def clear_cache(self, cache):
        pass

    def allocate_default_profile_scratch(self, size, alignment, stream):
        return _config.device().zeros(size, np.uint8)


# ---------------------------------------------------------------------------------------------
# Arguments


def _bf16_bits(v):
    """The bfloat16 nearest to `v` (round to nearest even), as its 16 bits."""
    b = struct.unpack("<I", struct.pack("<f", v))[0]
    if (b & 0x7F800000) == 0x7F800000 and (b & 0x7FFFFF):
        return (b >> 16) | 0x40
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


_INT_TYPES = {"i1": np.uint8, "u1": np.uint8, "i8": np.int8, "i16": np.int16, "i32": np.int32,
              "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32,
              "u64": np.uint64}
_FLOAT_TYPES = {"fp16": np.float16, "fp32": np.float32, "f32": np.float32, "fp64": np.float64}


def _scalar(name, ty, v):
    """The value of scalar argument `name` of Triton type `ty`, as the kernel takes it."""
    try:
        if ty in _INT_TYPES:
            if isinstance(v, (float, np.floating)):
                raise TypeError
            iv = int(v)
            info = np.iinfo(_INT_TYPES[ty])
            if not info.min <= iv <= info.max and not (ty in ("i1", "u1") and iv in (0, 1)):
                raise LaunchError("arguments", f"argument `{name}`: {v} does not fit {ty}")
            return _INT_TYPES[ty](iv)
        if ty in _FLOAT_TYPES:
            return _FLOAT_TYPES[ty](float(v))
        if ty == "bf16":
            return np.uint16(_bf16_bits(float(v)))
    except (TypeError, ValueError, OverflowError):
        raise LaunchError("arguments", f"argument `{name}`: a {type(v).__name__} cannot be "
                          f"passed as {ty}") from None
    raise LaunchError("arguments", f"argument `{name}`: Triton type {ty} is not supported by "
                      "ptxemu's launcher")


def _is_torch_tensor(v):
    return type(v).__module__.startswith("torch") and hasattr(v, "numpy")


def _torch_view(name, t):
    """A numpy array sharing a CPU torch tensor's memory."""
    if t.device.type != "cpu":
        raise LaunchError("arguments", f"argument `{name}`: a torch tensor on {t.device}; "
                          "ptxemu takes CPU tensors")
    t = t.detach()
    import torch
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy()
    if t.dtype in (getattr(torch, "float8_e4m3fn", None), getattr(torch, "float8_e5m2", None)):
        return t.view(torch.uint8).numpy()
    return t.numpy()


def _pointer(name, v, dev, copies):
    """The device address to pass for pointer argument `name`."""
    if isinstance(v, DeviceArray):
        if v.device is not dev and v.device.id != dev.id:
            raise LaunchError("arguments", f"argument `{name}`: a device array of {v.device!r}, "
                              f"but Triton launches use {dev!r} (ptxemu.triton.set_target(device=...))")
        return v.ptr
    if isinstance(v, np.ndarray):
        return copies.pointer(name, v)
    if _is_torch_tensor(v):
        return copies.pointer(name, _torch_view(name, v))
    if v is None:
        return 0
    raise LaunchError("arguments", f"argument `{name}`: a {type(v).__name__} cannot be passed "
                      "to ptxemu as a pointer (pass a numpy array, a ptxemu DeviceArray, or a "
                      "CPU torch tensor)")


# ---------------------------------------------------------------------------------------------
# Host tensor descriptors


#: Triton's device-side element-type numbers → CUtensorMapDataType (as NVIDIA's launcher maps
#: them), and the tf32 rounding type.
_TMA_DEVICE_TO_HOST = {i: i for i in range(16)}
_TMA_DEVICE_TO_HOST.update({8: 10, 9: 8, 10: 9})
_TMA_TF32 = 11


def _tensor_map(base, elem_type, elem_size, swizzle, box, shape, strides, nan_fill):
    """A 128-byte tensor map in ptxemu's encoding (docs/tensor-map.md): tiled, interleave none,
    the given swizzle mode with 16-byte atomicity, L2 promotion none."""
    rank = len(shape)
    if not 1 <= rank <= 5:
        raise LaunchError("arguments", f"a tensor descriptor of rank {rank} (1 to 5 supported)")
    b = bytearray(128)
    struct.pack_into("<Q", b, 0, base)
    # Dimensions are innermost first; byte strides of dimensions 1.. .
    dims = list(reversed([int(s) for s in shape]))
    st = list(reversed([int(s) * elem_size for s in strides]))[1:]
    for k, s in enumerate(st):
        struct.pack_into("<Q", b, 8 + 8 * k, s)
    for k, d in enumerate(dims):
        struct.pack_into("<I", b, 40 + 4 * k, d)
    flags = (elem_type & 0xF) | ((rank - 1) << 4) | ((swizzle & 0x7) << 10) | (int(nan_fill) << 15)
    struct.pack_into("<I", b, 60, flags)
    for k, x in enumerate(reversed([int(x) for x in box])):
        b[64 + k] = x - 1
    return bytes(b)


def _make_tensordesc_arg(arg, metadata, _base_args):
    """A host TensorDescriptor as the kernel takes it: on sm_80 decomposed (pointer, shapes,
    strides, flags), from sm_90 as a tensor map plus shape and strides."""
    if metadata is None:
        return decompose_descriptor(arg)
    if metadata.get("is_im2col", False):
        raise LaunchError("arguments", "im2col tensor descriptors are not supported by ptxemu's "
                          "launcher")
    shape = list(arg.shape)
    if metadata["fp4_padded"]:
        shape[-1] *= 2
    elem_type = _TMA_TF32 if arg.round_f32_to_tf32 else _TMA_DEVICE_TO_HOST[metadata["elem_type"]]
    tm = _TensorMapArg(arg.base, elem_type, metadata["elem_size"], metadata["swizzle"],
                       metadata["block_size"], shape, list(arg.strides), arg.padding == "nan")
    return [tm, *arg.shape, *arg.strides]


class _TensorMapArg:
    """A host tensor descriptor's map, encoded at launch once its base has a device address."""

    __slots__ = ("base", "elem_type", "elem_size", "swizzle", "box", "shape", "strides", "nan")

    def __init__(self, base, elem_type, elem_size, swizzle, box, shape, strides, nan):
        self.base, self.elem_type, self.elem_size = base, elem_type, elem_size
        self.swizzle, self.box, self.shape, self.strides, self.nan = swizzle, box, shape, strides, nan

    def encode(self, name, dev, copies):
        if self.strides[-1] != 1:
            raise LaunchError("arguments", f"argument `{name}`: a tensor descriptor's last "
                              "stride must be 1")
        base = _pointer(name, self.base, dev, copies)
        return _tensor_map(base, self.elem_type, self.elem_size, self.swizzle, self.box,
                           self.shape, self.strides, self.nan)


# ---------------------------------------------------------------------------------------------
# The launcher


def _expanded_names(names, signature, has_meta):
    """Each expanded signature entry with the name of the parameter it comes from."""
    out = []
    for name, sig in zip(names, signature):
        if isinstance(sig, tuple):
            out.append(tuple(_expanded_names([f"{name}[{i}]" for i in range(len(sig))], sig,
                                             has_meta)))
        elif isinstance(sig, str) and sig.startswith("tensordesc"):
            for t in expand_signature([sig], has_meta and {"x": 1}, "nvTmaDesc"):
                out.append((name, t))
        else:
            out.append((name, sig))
    return out


def _flatten(named, values, out):
    """(name, type, value) of every non-constexpr argument, tuples flattened."""
    for nt, v in zip(named, values):
        if isinstance(nt, tuple) and nt and isinstance(nt[0], tuple):
            _flatten(nt, v, out)
        elif isinstance(nt, tuple) and len(nt) == 0:
            continue
        else:
            name, ty = nt
            if ty != "constexpr":
                out.append((name, ty, v))


class PtxemuLauncher:
    """Launches one compiled kernel on ptxemu, as NVIDIA's launcher launches it on a GPU."""

    def __init__(self, src, metadata):
        signature = dict(src.signature)
        fn = getattr(src, "fn", None)
        names = list(getattr(fn, "arg_names", None) or signature.keys())
        tensordesc_meta = getattr(metadata, "tensordesc_meta", None)
        self.named = _expanded_names(names, list(signature.values()), bool(tensordesc_meta))
        self.launch = wrap_handle_tensordesc_impl(self._launch, signature, tensordesc_meta,
                                                  _make_tensordesc_arg)
        self.name = metadata.name
        self.block = metadata.num_warps * getattr(metadata, "warp_size", 32)
        self.shared = metadata.shared
        self.num_ctas = getattr(metadata, "num_ctas", 1) or 1
        self.scratch = ((metadata.global_scratch_size, metadata.global_scratch_align),
                        (metadata.profile_scratch_size, metadata.profile_scratch_align))
        self.cooperative = getattr(metadata, "launch_cooperative_grid", False)
        self.pdl = getattr(metadata, "launch_pdl", False)

    def __call__(self, gridX, gridY, gridZ, stream, function, kernel_metadata, launch_metadata,
                 launch_enter_hook, launch_exit_hook, *args):
        if launch_enter_hook is not None:
            launch_enter_hook(launch_metadata)
        self.launch((gridX, gridY, gridZ), function, args)
        if launch_exit_hook is not None:
            launch_exit_hook(launch_metadata)

    def _scratch(self, which, size, align, ctas, dev, stream):
        """The scratch buffer Triton's launcher would pass (None when the kernel needs none)."""
        if size <= 0:
            return None, None
        total = ctas * self.num_ctas * size
        limit = _config.memory_limit()
        if total > limit:
            raise LaunchError("memory_limit", f"kernel `{self.name}` asks for {total} bytes of "
                              f"{which} scratch ({size} per CTA), more than the memory limit of "
                              f"{limit} bytes (ptxemu.triton.set_target(memory_limit=...) or "
                              "PTXEMU_MEMORY_LIMIT)")
        if which == "global":
            allocator = _allocation._allocator.get()
            null = isinstance(allocator, _allocation.NullAllocator)
        else:
            null = not _allocation.has_profile_allocator()
            allocator = None if null else _allocation._profile_allocator.get()
        if null:
            buf = dev.zeros(total, np.uint8)
            return buf.ptr, buf
        buf = allocator(total, align, stream)
        return buf, buf

    def _launch(self, grid, function, kernel_args):
        ctas = grid[0] * grid[1] * grid[2]
        if ctas == 0:
            return
        flat = []
        _flatten(self.named, kernel_args, flat)
        dev = _config.device()
        copies = HostCopies(dev)
        keep = []
        try:
            values = []
            for name, ty, v in flat:
                if ty.startswith("*"):
                    values.append(np.uint64(_pointer(name, v, dev, copies)))
                elif ty == "nvTmaDesc":
                    values.append(v.encode(name, dev, copies))
                else:
                    values.append(_scalar(name, ty, v))
            for which, (size, align) in zip(("global", "profile"), self.scratch):
                ptr, buf = self._scratch(which, size, align, ctas, dev, 0)
                keep.append(buf)
                if ptr is not None and not isinstance(ptr, int):
                    ptr = _pointer(f"{which} scratch", ptr, dev, copies)
                values.append(np.uint64(ptr or 0))
            module = _config._module(function.ptx, function.name, _config.gpu())
            f = module.get_function(function.name)
            if len(f.params) != len(values):
                raise LaunchError("arguments", f"kernel `{self.name}` takes {len(f.params)} "
                                  f"parameters but Triton passed {len(values) - 2} and 2 scratch "
                                  "pointers")
            g = (grid[0] * self.num_ctas, grid[1], grid[2])
            cluster = (self.num_ctas, 1, 1) if self.num_ctas > 1 else None
            try:
                stats = f(g, self.block, values, self.shared, device=dev, cluster=cluster)
            except Exception as e:
                st = getattr(e, "stats", None)
                if st is not None:
                    _EMULATED["ms"] += st.wall_s * 1e3
                raise
            _EMULATED["ms"] += stats.wall_s * 1e3
        except BaseException:
            copies.discard()
            raise
        copies.copy_back()
        for b in keep:
            if isinstance(b, DeviceArray) and b is not None:
                b.free()
