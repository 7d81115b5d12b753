"""Tensor maps made as the CUDA driver makes them, and by-value structs holding device
addresses and tensor maps (a CUTLASS kernel's Params)."""

import numpy as np

from . import _native
from ._device import DeviceArray
from ._errors import TensorMapError

# CUtensorMapDataType, by number and by name; ptxemu's names are PTX's.
_DTYPES = ["u8", "u16", "u32", "s32", "u64", "s64", "f16", "f32", "f64", "bf16", "f32_ftz",
           "tf32", "tf32_ftz"]
_NUMPY = {np.dtype(np.uint8): "u8", np.dtype(np.uint16): "u16", np.dtype(np.uint32): "u32",
          np.dtype(np.int32): "s32", np.dtype(np.uint64): "u64", np.dtype(np.int64): "s64",
          np.dtype(np.float16): "f16", np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
_ENUMS = {
    "interleave": ["none", "16B", "32B"],
    "swizzle": ["none", "32B", "64B", "128B", "128B_atom_32B", "128B_atom_32B_flip_8B",
                "128B_atom_64B"],
    "l2_promotion": ["none", "64B", "128B", "256B"],
    "oob_fill": ["none", "nan_request_zero_fma"],
}


def _enum(what, v):
    names = _ENUMS[what]
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        if 0 <= int(v) < len(names):
            return int(v)
    elif isinstance(v, str):
        low = [n.lower() for n in names]
        key = v.lower()
        if what == "oob_fill" and key in ("zero", "nan"):
            key = {"zero": "none", "nan": "nan_request_zero_fma"}[key]
        if key in low:
            return low.index(key)
    raise TensorMapError(f"{what} {v!r}: expected one of {', '.join(names)} "
                         f"(or the CUtensorMap enum's number 0-{len(names) - 1})")


def _dtype(v):
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        if 0 <= int(v) < len(_DTYPES):
            return _DTYPES[int(v)]
    elif isinstance(v, str) and v in _DTYPES:
        return v
    else:
        try:
            d = np.dtype(v)
        except TypeError:
            d = None
        if d in _NUMPY:
            return _NUMPY[d]
    raise TensorMapError(f"tensorDataType {v!r}: expected one of {', '.join(_DTYPES)}, a "
                         f"numpy dtype of those, or CUtensorMapDataType's number")


def _ints(what, v, n=None):
    try:
        out = [int(x) for x in v]
    except TypeError:
        raise TensorMapError(f"{what}: a sequence of integers, not {v!r}") from None
    if n is not None and len(out) != n:
        raise TensorMapError(f"{what}: {len(out)} value(s) given, {n} expected")
    return out


def _address(global_address):
    """(DeviceArray, byte address) of `global_address`: a DeviceArray, or (DeviceArray, offset)."""
    if isinstance(global_address, tuple) and len(global_address) == 2:
        arr, off = global_address
    else:
        arr, off = global_address, 0
    if not isinstance(arr, DeviceArray):
        raise TensorMapError("globalAddress: a DeviceArray (or (DeviceArray, byte offset)) whose "
                             f"memory the map describes, not {type(arr).__name__}")
    off = int(off)
    if not 0 <= off < max(arr.nbytes, 1):
        raise TensorMapError(f"globalAddress: offset {off} is outside the array ({arr.nbytes} bytes)")
    return arr, arr.ptr + off


class TensorMap:
    """A tensor map (``CUtensorMap``), made as ``cuTensorMapEncodeTiled`` /
    ``cuTensorMapEncodeIm2col`` make it and checked as they check their parameters (a
    `TensorMapError` names the parameter). Pass it to a ``.param .align 64 .b8 [128]``
    parameter (``const __grid_constant__ CUtensorMap``) or place it in a `Struct`.

    ``bytes(tm)`` is its 128 bytes in ptxemu's encoding (docs/tensor-map.md); `device` is the
    device of the array it describes, which a launch that passes it runs on.
    """

    def __init__(self, data, array, params):
        self._bytes = bytes(data)
        self.array = array
        self.params = params

    @property
    def device(self):
        """The device of the array the map describes."""
        return self.array.device

    def __bytes__(self):
        return self._bytes

    def __len__(self):
        return len(self._bytes)

    def __repr__(self):
        p = self.params
        return (f"<ptxemu.TensorMap {'im2col' if p['im2col'] else 'tiled'} {p['dtype']} "
                f"dims {p['dims']} over 0x{p['address']:x}>")

    @classmethod
    def encode_tiled(cls, tensor_data_type, global_address, global_dim, global_strides, box_dim,
                     element_strides=None, interleave="none", swizzle="none",
                     l2_promotion="none", oob_fill="none"):
        """As ``cuTensorMapEncodeTiled``: the rank is ``len(global_dim)``; lists are dimension 0
        (innermost) first; ``global_strides`` are the byte strides of dimensions 1 and up;
        ``global_address`` is a DeviceArray or (DeviceArray, byte offset); the enums are given
        by name (``"128B"``) or by the driver's number."""
        return cls._make(False, tensor_data_type, global_address, global_dim, global_strides,
                         box_dim, element_strides, interleave, swizzle, l2_promotion, oob_fill)

    @classmethod
    def encode_im2col(cls, tensor_data_type, global_address, global_dim, global_strides,
                      pixel_box_lower_corner, pixel_box_upper_corner, channels_per_pixel,
                      pixels_per_column, element_strides=None, interleave="none",
                      swizzle="none", l2_promotion="none", oob_fill="none"):
        """As ``cuTensorMapEncodeIm2col`` (rank 3 to 5; the corners W first)."""
        return cls._make(True, tensor_data_type, global_address, global_dim, global_strides,
                         [], element_strides, interleave, swizzle, l2_promotion, oob_fill,
                         lower=_ints("pixelBoxLowerCorner", pixel_box_lower_corner),
                         upper=_ints("pixelBoxUpperCorner", pixel_box_upper_corner),
                         channels=int(channels_per_pixel), pixels=int(pixels_per_column))

    @classmethod
    def _make(cls, im2col, dtype, global_address, dims, strides, boxes, estrides, interleave,
              swizzle, l2, oob, **im2col_args):
        arr, addr = _address(global_address)
        params = dict(im2col=im2col, dtype=_dtype(dtype), address=addr,
                      dims=_ints("globalDim", dims), strides=_ints("globalStrides", strides),
                      boxes=_ints("boxDim", boxes),
                      estrides=None if estrides is None else _ints("elementStrides", estrides),
                      interleave=_enum("interleave", interleave), swizzle=_enum("swizzle", swizzle),
                      l2=_enum("l2_promotion", l2), oob=_enum("oob_fill", oob), **im2col_args)
        data = _native.encode_tensor_map(**params)
        return cls(data, arr, params)


def _field_bytes(value):
    """(bytes, devices, alignment) of one struct field."""
    if isinstance(value, DeviceArray):
        return value.ptr.to_bytes(8, "little"), {value.device.id: value.device}, 8
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], DeviceArray):
        arr, off = value
        return ((arr.ptr + int(off)).to_bytes(8, "little"), {arr.device.id: arr.device}, 8)
    if isinstance(value, TensorMap):
        return bytes(value), {value.device.id: value.device}, 64
    if isinstance(value, Struct):
        return bytes(value), dict(value.devices), 1
    if isinstance(value, np.generic):
        return value.tobytes(), {}, value.dtype.itemsize
    if isinstance(value, (bytes, bytearray)):
        return bytes(value), {}, 1
    raise TypeError(f"a struct field is a DeviceArray (its address), (DeviceArray, byte offset), "
                    f"a TensorMap, a numpy scalar, bytes or a Struct, not {type(value).__name__} "
                    f"(write np.int32(5), not 5: the width must be explicit)")


class Struct:
    """An argument passed by value, laid out from (offset, value) pairs: a DeviceArray or
    (DeviceArray, byte offset) puts an 8-byte device address there, a `TensorMap` its 128
    bytes, a numpy scalar or `bytes` their bytes.

    ``size`` is the struct's size in bytes (default: the end of the last field, rounded up to
    the largest field's alignment); ``base`` gives the bytes the fields are written over (raw
    Params bytes a host program made). Fields may not overlap each other or lie outside
    ``size``; an address must be 8-byte and a tensor map 64-byte aligned.
    ``bytes(s)`` is the struct; `devices` the devices of the arrays and maps it names, which a
    launch that passes it runs on.
    """

    def __init__(self, fields, size=None, base=None):
        placed, devices, align = [], {}, 1
        for item in fields:
            try:
                off, value = item
            except (TypeError, ValueError):
                raise TypeError(f"a struct field is an (offset, value) pair, not {item!r}") from None
            off = int(off)
            data, devs, a = _field_bytes(value)
            if off < 0 or off % a:
                raise ValueError(f"the field at offset {off} is not aligned to {a} bytes")
            placed.append((off, data))
            devices.update(devs)
            align = max(align, a)
        placed.sort(key=lambda p: p[0])
        for (o1, d1), (o2, _) in zip(placed, placed[1:]):
            if o1 + len(d1) > o2:
                raise ValueError(f"the fields at offsets {o1} and {o2} overlap")
        end = max((o + len(d) for o, d in placed), default=0)
        if base is not None:
            base = bytes(base)
            if size is None:
                size = len(base)
            elif len(base) != size:
                raise ValueError(f"base has {len(base)} bytes; the struct has {size}")
        if size is None:
            size = -(-end // align) * align
        if end > size:
            raise ValueError(f"the fields end at byte {end}, past the struct's {size} bytes")
        out = bytearray(base if base is not None else bytes(size))
        for o, d in placed:
            out[o:o + len(d)] = d
        self._bytes = bytes(out)
        self.devices = devices

    def __bytes__(self):
        return self._bytes

    def __len__(self):
        return len(self._bytes)

    def __repr__(self):
        return f"<ptxemu.Struct {len(self._bytes)} bytes>"
