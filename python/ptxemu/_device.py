"""Devices and device arrays."""

import weakref

import numpy as np

from . import _native
from ._errors import DeviceMemoryError

_DEVICES = weakref.WeakSet()


def _live_devices():
    """The devices that exist now."""
    return list(_DEVICES)


def _native_order(a):
    """`a` as a C-contiguous array in native byte order (no copy when it already is)."""
    a = np.asarray(a)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    return np.ascontiguousarray(a)


def _bytes_view(a):
    """A flat uint8 view of a C-contiguous array (no copy)."""
    return a.reshape(-1).view(np.uint8)


#: The most bytes one device array may have (ptxemu's largest allocation).
_MAX_BYTES = 1 << 34


def _checked_shape(shape, dtype):
    """(shape as a tuple of ints, elements, bytes), refusing negative or non-integer
    dimensions and byte sizes past 64 bits (ValueError), and sizes past one allocation
    (DeviceMemoryError), computed exactly so that no product wraps."""
    shape = (shape,) if np.isscalar(shape) else tuple(shape)
    dims = []
    for d in shape:
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
            raise ValueError(f"shape {shape}: dimensions are integers, not {d!r}")
        if d < 0:
            raise ValueError(f"shape {shape}: dimension {d} is negative")
        dims.append(int(d))
    size = 1
    for d in dims:
        size *= d
    nbytes = size * dtype.itemsize
    if nbytes >= 1 << 64:
        raise ValueError(f"shape {tuple(dims)} of {dtype} is {nbytes} bytes, past 64 bits")
    if nbytes > _MAX_BYTES:
        raise DeviceMemoryError(f"shape {tuple(dims)} of {dtype} is {nbytes} bytes; one device "
                                f"array holds at most {_MAX_BYTES}")
    return tuple(dims), size, nbytes


class Device:
    """An emulated device: global memory that persists across launches (and modules).

    memory_limit: the most bytes its arrays and launches may hold (default: the machine's
    memory); past it, an allocation raises `DeviceMemoryError`.
    """

    def __init__(self, memory_limit=None):
        self._native = _native.Device(memory_limit)
        _DEVICES.add(self)

    @property
    def id(self):
        """A number that tells this device from the others of the process."""
        return self._native.id

    @property
    def memory_limit(self):
        """The most bytes of device memory this device's arrays and launches may hold."""
        return self._native.memory_limit

    def __repr__(self):
        return f"<ptxemu.Device {self.id}>"

    def empty(self, shape, dtype=np.float32):
        """A device array of `shape` and `dtype` (zero-filled, as all device memory starts)."""
        dtype = np.dtype(dtype)
        shape, _, nbytes = _checked_shape(shape, dtype)
        addr = self._native.alloc(nbytes, f"array {shape} {dtype}")
        return DeviceArray(self, addr, shape, dtype)

    def zeros(self, shape, dtype=np.float32):
        """A zero-filled device array."""
        return self.empty(shape, dtype)

    def to_device(self, array):
        """A device array holding a copy of `array` (read straight from numpy's buffer when it
        is C-contiguous and in native byte order)."""
        a = _native_order(array)
        d = self.empty(a.shape, a.dtype)
        if a.nbytes:
            self._native.write(d.ptr, _bytes_view(a))
        return d


class DeviceArray:
    """An array in a device's global memory. `ptr` is its device address."""

    def __init__(self, device, ptr, shape, dtype):
        self.device = device
        self.ptr = ptr
        self.dtype = np.dtype(dtype)
        self.shape, self.size, self.nbytes = _checked_shape(shape, self.dtype)
        self._freed = False

    def __repr__(self):
        return f"<ptxemu.DeviceArray {self.shape} {self.dtype} at 0x{self.ptr:x}>"

    def __len__(self):
        return self.shape[0]

    # What Triton's JIT (and torch-style code) reads of a tensor argument.

    def data_ptr(self):
        """The device address (Triton passes it for a pointer parameter)."""
        return self.ptr

    def stride(self, dim=None):
        """Strides in elements (C order), as torch's ``Tensor.stride()``."""
        st, acc = [], 1
        for d in reversed(self.shape):
            st.append(acc)
            acc *= d
        st = tuple(reversed(st))
        return st if dim is None else st[dim]

    def numel(self):
        """The number of elements."""
        return self.size

    def element_size(self):
        """Bytes per element."""
        return self.dtype.itemsize

    def dim(self):
        """The number of dimensions."""
        return len(self.shape)

    def copy_to_host(self, out=None):
        """The array's current contents as a numpy array (written into `out` when given: a
        C-contiguous array of the same size and dtype)."""
        if out is None:
            out = np.empty(self.shape, self.dtype)
        elif out.dtype != self.dtype or out.size != self.size or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous {self.dtype} array of {self.size} elements")
        if self.nbytes:
            self.device._native.read_into(self.ptr, _bytes_view(out))
        return out

    def copy_from_host(self, array):
        """Overwrites the array with `array` (same number of bytes)."""
        a = _native_order(np.asarray(array, dtype=self.dtype))
        if a.nbytes != self.nbytes:
            raise ValueError(f"{a.nbytes} bytes given for a {self.nbytes}-byte device array")
        if a.nbytes:
            self.device._native.write(self.ptr, _bytes_view(a))

    def __array__(self, dtype=None, copy=None):
        a = self.copy_to_host()
        return a if dtype is None else a.astype(dtype)

    def free(self):
        """Releases the memory now (later launches that use the address fault)."""
        if not self._freed:
            self._freed = True
            self.device._native.free(self.ptr)

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass


_DEFAULT = None


def default_device():
    """The device modules launch on when no argument or keyword names one."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Device()
    return _DEFAULT
