"""Modules, their kernels, launches and module variables."""

import os
import struct
import warnings
from dataclasses import dataclass, field

import numpy as np

from . import _native
from ._device import DeviceArray, _bytes_view, _live_devices, _native_order, default_device
from ._errors import Fault, LaunchError, RaceError, RaceWarning
from ._host_arrays import HostCopies
from ._tensor_map import Struct, TensorMap

_INT_RANGE = {
    "s": lambda bits: (-(1 << (bits - 1)), (1 << (bits - 1)) - 1),
    "u": lambda bits: (0, (1 << bits) - 1),
    "b": lambda bits: (-(1 << (bits - 1)), (1 << bits) - 1),
}
_FLOAT_FORMAT = {"f16": "<e", "f32": "<f", "f64": "<d"}


@dataclass
class LaunchStats:
    """What a launch did (the fields of ``ptxemu run --json`` apart from buffers)."""

    kernel: str
    grid: tuple
    block: tuple
    shared_bytes: int
    warp_instructions: int
    thread_instructions: int
    wall_s: float
    stdout: str = ""
    nc_conflicts: list = field(default_factory=list)
    #: With ``race`` on: the data races found, each a dict with ``first`` and ``second``
    #: (line, instruction, source, kind, sem, scope (None for a weak access), space, cta,
    #: thread, warp, lane, address (``0x…`` text), bytes), ``reason``, ``count`` (racing
    #: access pairs of the two instructions) and ``fence_sc_dependent``, exactly as
    #: ``ptxemu run --race --json`` reports them; else None. (``race=True`` raises RaceError
    #: when there is any, so a returned list is empty unless ``race="warn"``.)
    races: list = None
    #: Clusters whose launch a ``clusterlaunchcontrol.try_cancel`` canceled.
    clusters_canceled: int = 0
    #: The kernel's demangled C++ name (``kernel`` itself when it is not mangled).
    kernel_demangled: str = ""


def _race_mode(race):
    """off, raise or warn, from the `race` keyword."""
    if race is None or race is False or race == "off":
        return "off"
    if race is True or race == "raise" or race == "on":
        return "raise"
    if race == "warn":
        return "warn"
    raise ValueError(f"race `{race}`: expected True (raise RaceError), \"warn\" or False")


def _shape(v, what):
    if isinstance(v, (int, np.integer)):
        v = (int(v),)
    v = tuple(int(x) for x in v)
    if not 1 <= len(v) <= 3:
        raise ValueError(f"{what} takes 1 to 3 dimensions, got {v}")
    return v + (1,) * (3 - len(v))


def _read_source(ptx):
    """(text, name) of PTX text or of a path to a PTX file."""
    if isinstance(ptx, os.PathLike) or (isinstance(ptx, str) and "\n" not in ptx
                                        and not ptx.lstrip().startswith(".")):
        # Size checked before reading (128 MiB, as the command line): /dev/zero is refused.
        return _native.read_text(os.fspath(ptx)), os.fspath(ptx)
    if isinstance(ptx, bytes):
        ptx = ptx.decode("utf-8")
    return ptx, "<string>"


def _scalar_bytes(i, value, ptype, size):
    """The bytes of a Python or numpy scalar for a parameter of PTX type `ptype`."""
    if isinstance(value, np.generic):
        b = value.tobytes()
        if len(b) != size:
            raise LaunchError("arguments", f"argument {i}: a {value.dtype} is {len(b)} byte(s) "
                              f"but the parameter (.{ptype}) takes {size}")
        return b
    if isinstance(value, (bytes, bytearray, Struct, TensorMap)):
        value = bytes(value)
        if len(value) != size:
            raise LaunchError("arguments", f"argument {i}: {len(value)} byte(s) given for a "
                              f"{size}-byte parameter")
        return value
    if ptype in _FLOAT_FORMAT and isinstance(value, (int, float)) and not isinstance(value, bool):
        return struct.pack(_FLOAT_FORMAT[ptype], value)
    if isinstance(value, (int, bool)) and ptype[0] in _INT_RANGE and ptype[1:].isdigit():
        lo, hi = _INT_RANGE[ptype[0]](size * 8)
        if not lo <= int(value) <= hi:
            raise LaunchError("arguments", f"argument {i}: {value} does not fit the parameter's "
                              f"type .{ptype}")
        return (int(value) & ((1 << (size * 8)) - 1)).to_bytes(size, "little")
    raise LaunchError("arguments", f"argument {i}: a {type(value).__name__} cannot be passed to "
                      f"a .{ptype} parameter of {size} byte(s)")


#: The GPUs whose numerics ptxemu emulates, and the SM each runs a module as (`run --gpu`).
_GPU_SM = {"a100": 80, "h100": 90, "b200": 100}

#: What each GPU reports to a kernel, as ``run --gpu`` sets it: its SM count (``%nsmid``) and
#: the most shared memory one CTA may have (the opt-in limit: 163 KiB on the A100, 227 KiB on
#: the H100 and B200).
_GPU_LIMITS = {"a100": (108, 163 * 1024), "h100": (132, 227 * 1024), "b200": (148, 227 * 1024)}


class Module:
    """A PTX module (text, or a path to a file), parsed and validated.

    gpu: ``"a100"``, ``"h100"`` or ``"b200"``: the GPU whose numerics (tensor-core results,
    sm-dependent behaviour) to emulate, and what it reports to kernels (``%nsmid`` 108, 132 or
    148; at most 163, 227 or 227 KiB of shared memory per CTA), as ``ptxemu run --gpu`` does;
    default: the numerics of the one the module's ``.target`` names, one SM.

    Its kernels run on any `Device`: the module is loaded onto a device the first time a launch
    or a variable access uses it, and its variables live there, as with a CUDA context.
    """

    def __init__(self, ptx, name=None, gpu=None):
        text, shown = _read_source(ptx)
        if gpu is not None and gpu not in _GPU_SM:
            raise ValueError(f"gpu `{gpu}`: expected one of {', '.join(_GPU_SM)}")
        self._native = _native.Module(text, name or shown, _GPU_SM.get(gpu))
        self.gpu = gpu
        self._last_device = None
        self._functions = {}

    @property
    def name(self):
        """The module's name in messages: its path, or the `name` it was given."""
        return self._native.name

    def kernels(self):
        """The names of the module's kernels."""
        return self._native.kernels()

    def get_function(self, name):
        """The kernel `name`, to call as ``f(grid, block, args, shared_mem=0)``.

        `name` is the kernel's mangled name as the PTX declares it
        (``_Z19reduce_missing_syncPKfPf``), its demangled C++ signature
        (``reduce_missing_sync(const float*, float*)``; spacing and ``const`` placement do not
        matter) or its base name (``reduce_missing_sync``) when exactly one kernel has it.
        Raises `LaunchError` (kind ``no_kernel``) listing the kernels for an unknown name, and
        the candidates for an ambiguous one (overloads, template instances).
        """
        f = self._functions.get(name)
        if f is None:
            mangled = self._native.resolve_kernel(name)
            f = self._functions.get(mangled)
            if f is None:
                f = Function(self, mangled, self._native.params(mangled))
                self._functions[mangled] = f
            self._functions[name] = f
        return f

    def _device(self, device):
        if device is None:
            device = self._last_device or default_device()
        self._last_device = device
        return device

    def set_global(self, name, array, device=None):
        """Writes a module ``.global`` or ``.const`` variable (its leading bytes when `array` is
        shorter), as cudaMemcpyToSymbol does."""
        a = _native_order(np.asarray(array))
        self._native.set_global(self._device(device)._native, name, _bytes_view(a))

    def get_global(self, name, dtype=np.uint8, shape=None, device=None):
        """A module variable's bytes as a numpy array of `dtype` (its whole size unless `shape`
        gives fewer elements), as cudaMemcpyFromSymbol does."""
        dev = self._device(device)._native
        dtype = np.dtype(dtype)
        size = self._native.global_size(dev, name)
        if shape is None:
            if size % dtype.itemsize:
                raise ValueError(f"`{name}` is {size} bytes, not a whole number of {dtype} "
                                 f"elements ({dtype.itemsize} bytes each); give a shape")
            shape = (size // dtype.itemsize,)
        out = np.empty(shape, dtype)
        if out.nbytes > size:
            raise ValueError(f"shape {tuple(out.shape)} of {dtype} is {out.nbytes} bytes, more "
                             f"than `{name}`'s {size}")
        self._native.get_global(dev, name, _bytes_view(out))
        return out


def _wgmma_strict(check):
    if check not in ("on", "strict"):
        raise ValueError(f"wgmma_check `{check}`: expected on or strict")
    return check == "strict"


class Function:
    """A kernel of a module. Call it as ``f(grid, block, args, shared_mem=0, ...)``.

    args: one per kernel parameter, in order: a `DeviceArray` (its address), a numpy array
    (copied to the device before the launch and back after it; arrays that share memory share
    one device copy, so the same array passed twice is one buffer; a read-only array that the
    kernel writes raises `LaunchError` rather than losing the result), a numpy scalar (its bytes; the
    size must match), or a Python int or float (converted to the parameter's PTX type).
    A `ptxemu.Struct` or `ptxemu.TensorMap` passes its bytes (a by-value struct holding device
    addresses and tensor maps; a ``const __grid_constant__ CUtensorMap``).
    Keywords: shared_mem (bytes of dynamic shared memory), device (default: the device every
    DeviceArray, TensorMap and Struct among the arguments names, else the module's last
    device; arguments naming several devices are refused, and so are raw bytes that name none
    when several devices exist), tmem_check (True/"on";
    "strict": also a tcgen05.ld of MMA results with no tcgen05.fence::after_thread_sync after
    the wait; False/"off"), race (the data-race detector: True raises `RaceError` when the
    launch races, after copying the arrays back; "warn" issues a `RaceWarning` instead and
    returns; the races are in the stats either way), check_nc, max_steps, threads (host
    threads, 0: all cores), cluster (the cluster shape in CTAs, as ``--cluster``; default: the
    kernel's ``.reqnctapercluster``, else one CTA), try_cancel (``"succeed"``, ``"fail"`` or
    ``"random:SEED"``: whether clusterlaunchcontrol.try_cancel succeeds while clusters
    remain), sms (``%nsmid``; default: the module's GPU's, else 1), resident_ctas (at most this many CTAs run at once: later
    clusters start as running ones finish, so try_cancel finds clusters to cancel),
    wgmma_check (``"on"``: a read of a wgmma accumulator before its ``wgmma.wait_group``
    waits, as ptxas makes the GPU do; ``"strict"``: it raises `Fault`, kind ``undefined``).
    Returns a `LaunchStats`; raises `Fault` when the kernel faults.
    """

    def __init__(self, module, name, params):
        self.module = module
        #: The kernel's name as the PTX declares it (mangled for C++ kernels).
        self.name = name
        #: Its demangled C++ name (`name` itself when it is not mangled).
        self.demangled = _native.Module.demangle(name)
        self.params = params

    def __repr__(self):
        return f"<ptxemu.Function {self.name}>"

    def _device_of(self, args, device):
        """The device a launch runs on: the one every DeviceArray, TensorMap and Struct among
        the arguments names (refused when they name several, or another than `device`), else
        `device`, else the module's last device; when nothing names one, raw bytes could hold
        any device's addresses, so with several devices alive `device=` is required."""
        named = {}
        for a in args:
            if isinstance(a, DeviceArray):
                named[a.device.id] = a.device
            elif isinstance(a, TensorMap):
                named[a.device.id] = a.device
            elif isinstance(a, Struct):
                named.update(a.devices)
        if len(named) > 1:
            raise LaunchError("arguments", "the arguments name arrays of several devices "
                              f"({', '.join(str(d) for d in sorted(named))}); a launch runs on one")
        if named:
            found = next(iter(named.values()))
            if device is not None and device.id != found.id:
                raise LaunchError("arguments", "the device arrays passed live on another device "
                                  "than the launch's")
            return self.module._device(found)
        opaque = any(isinstance(a, (bytes, bytearray)) and len(a) >= 8 for a in args)
        if device is None and opaque and len(_live_devices()) > 1:
            raise LaunchError("arguments", "no argument names a device (raw bytes may hold any "
                              "device's addresses) and several devices exist: pass device=, or "
                              "build the struct with ptxemu.Struct from DeviceArrays and "
                              "TensorMaps")
        return self.module._device(device)

    def __call__(self, grid, block, args=(), shared_mem=0, *, device=None, tmem_check=True,
                 race=False, check_nc=False, max_steps=1_000_000_000, threads=0, cluster=None,
                 try_cancel="succeed", sms=None, resident_ctas=None, wgmma_check="on"):
        """Launches the kernel over `grid` CTAs of `block` threads (ints or tuples of up to 3)
        with `args`, one per kernel parameter; the class's docstring lists the arguments and
        keywords. Returns a `LaunchStats`; raises `Fault` when the kernel faults."""
        if len(args) != len(self.params):
            raise LaunchError("arguments", f"kernel `{self.name}` takes {len(self.params)} "
                              f"parameter(s) but {len(args)} argument(s) were given")
        device = self._device_of(args, device)
        race_mode = _race_mode(race)
        gpu_sms, gpu_shared = _GPU_LIMITS.get(self.module.gpu, (None, None))
        tmem_fence = False
        if isinstance(tmem_check, str):
            if tmem_check not in ("on", "strict", "off"):
                raise ValueError(f"tmem_check `{tmem_check}`: expected on, strict or off")
            tmem_fence = tmem_check == "strict"
            tmem_check = tmem_check != "off"
        values = []
        copies = HostCopies(device)
        try:
            for i, (a, (pname, ptype, size, _aggregate)) in enumerate(zip(args, self.params)):
                if isinstance(a, np.ndarray):
                    if size != 8:
                        raise LaunchError("arguments", f"argument {i}: an array passes a 64-bit "
                                          f"address but parameter {i} ({pname}) takes {size} byte(s)")
                    values.append(copies.pointer(i, a).to_bytes(8, "little"))
                elif isinstance(a, DeviceArray):
                    if size != 8:
                        raise LaunchError("arguments", f"argument {i}: a device array passes a 64-bit "
                                          f"address but parameter {i} ({pname}) takes {size} byte(s)")
                    values.append(a.ptr.to_bytes(8, "little"))
                else:
                    values.append(_scalar_bytes(i, a, ptype, size))
            options = {"shared_mem": int(shared_mem), "max_steps": int(max_steps),
                       "threads": int(threads), "tmem_check": bool(tmem_check),
                       "tmem_fence": tmem_fence, "check_nc": bool(check_nc),
                       "race": race_mode != "off",
                       "cluster": None if cluster is None else _shape(cluster, "cluster"),
                       "try_cancel": str(try_cancel),
                       "sms": int(sms) if sms is not None else gpu_sms,
                       "max_shared": gpu_shared,
                       "resident_ctas": None if resident_ctas is None else int(resident_ctas),
                       "wgmma_strict": _wgmma_strict(wgmma_check)}
            r = self.module._native.launch(device._native, self.name, _shape(grid, "grid"),
                                           _shape(block, "block"), values, options)
        except BaseException:
            copies.discard()
            raise
        fault = r.get("fault")
        try:
            copies.copy_back()
        except LaunchError:
            if fault is None:
                raise
        fault = r.pop("fault", None)
        r.setdefault("clusters_canceled", 0)
        r["grid"], r["block"] = tuple(r["grid"]), tuple(r["block"])
        stats = LaunchStats(**r)
        if fault is not None:
            raise Fault(fault, stats)
        if stats.races:
            if race_mode == "raise":
                raise RaceError(self.name, stats.races, stats, self.demangled)
            warnings.warn(RaceWarning(self.name, stats.races, self.demangled), stacklevel=2)
        return stats
