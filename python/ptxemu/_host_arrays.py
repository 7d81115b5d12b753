"""numpy arrays (and CPU torch tensors) passed straight to a launch: copied to the device before
it and back after it, as one copy per host buffer, so that arguments that share memory on the
host share it on the device (the same array passed for two pointer parameters is one device
buffer, as a CUDA program's two pointers to one allocation would be)."""

import numpy as np

from ._errors import LaunchError


def _label(i):
    """An argument's index, or its parameter's name in backquotes."""
    return f"`{i}`" if isinstance(i, str) else str(i)


def _root(a):
    """The array that owns `a`'s memory (`a` itself when it owns it)."""
    r = a
    while isinstance(r.base, np.ndarray):
        r = r.base
    return r


def _span(a):
    """(first byte address, one past the last) of a C-contiguous array's data."""
    start = a.ctypes.data
    return start, start + a.nbytes


class HostCopies:
    """The device copies of the host arrays of one launch on `device`."""

    def __init__(self, device):
        self.device = device
        # (host array copied, its device array, argument index, read-only?)
        self._copies = []
        # (first byte, one past the last, device address) of each contiguous host buffer copied
        self._spans = []

    def pointer(self, i, a):
        """The device address to pass for host array `a` (argument `i`): inside an existing copy
        when `a` lies within a buffer already copied, else of a new copy."""
        if a.flags.c_contiguous and a.dtype.isnative:
            start, end = _span(a)
            for h0, h1, ptr in self._spans:
                if h0 <= start and end <= h1 and (h0 < h1 or start == h0):
                    return ptr + (start - h0)
            root = _root(a)
            # Copy the owner whole when it is contiguous, so that later views of it alias.
            host = root if (root.flags.c_contiguous and root.dtype.isnative
                            and _span(root)[0] <= start and end <= _span(root)[1]) else a
            h0, h1 = _span(host)
            dev = self.device.to_device(host)
            self._copies.append((host, dev, i, not host.flags.writeable))
            self._spans.append((h0, h1, dev.ptr))
            return dev.ptr + (start - h0)
        # A strided or byte-swapped array: a contiguous copy of its own.
        dev = self.device.to_device(a)
        self._copies.append((a, dev, i, not a.flags.writeable))
        return dev.ptr

    def copy_back(self):
        """Copies every buffer back into its host array and frees the device copies.

        # Errors
        `LaunchError` (kind ``arguments``) when the kernel wrote a read-only array: its result
        cannot be returned, and is not dropped silently.
        """
        error = None
        for host, dev, i, readonly in self._copies:
            if readonly:
                if error is None and dev.copy_to_host().tobytes() != np.ascontiguousarray(host).tobytes():
                    error = LaunchError(
                        "arguments", f"argument {_label(i)}: the kernel wrote a read-only numpy array; "
                        "pass a writable array (or a DeviceArray) to get the result")
            elif host.flags.c_contiguous and host.dtype.isnative:
                dev.copy_to_host(out=host)
            else:
                host[...] = dev.copy_to_host()
            dev.free()
        self._copies = []
        self._spans = []
        if error is not None:
            raise error

    def discard(self):
        """Frees the device copies without copying back (a launch that did not start)."""
        for _, dev, _, _ in self._copies:
            dev.free()
        self._copies = []
