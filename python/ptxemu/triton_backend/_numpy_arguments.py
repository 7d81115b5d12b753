"""numpy arrays and scalars as ``kernel[grid](...)`` arguments.

Triton's JIT types each argument with a native specialiser that knows torch tensors, objects
with ``data_ptr()``, and Python scalars; it refuses numpy arrays and numpy scalars. While
ptxemu's driver is active, the specialiser is wrapped: what the native one refuses and is a numpy
array becomes a pointer to its element type (16-byte aligned, as its device copy will be), and a
numpy scalar the Python scalar of its kind. The arguments themselves reach ptxemu's launcher
unchanged, which copies arrays in and back. An argument Triton cannot type raises a TypeError
that names it."""

import numpy as np

_NAMES = {"float16": "fp16", "float32": "fp32", "float64": "fp64", "int8": "i8", "int16": "i16",
          "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32",
          "uint64": "u64", "bool": "i1"}

_INSTALLED = {"done": False}


def _specialize_numpy(native):
    def specialize(backend, arg, is_const, specialize_value, align):
        try:
            return native(backend, arg, is_const, specialize_value, align)
        except TypeError:
            pass
        if isinstance(arg, np.ndarray):
            ty = _NAMES.get(arg.dtype.name)
            if ty is None:
                raise TypeError(f"a numpy array of {arg.dtype} cannot be passed to a Triton "
                                "kernel (no Triton element type)")
            prefix = "*k" if is_const else "*"
            return (prefix + ty, "D" if align and specialize_value else "")
        if isinstance(arg, np.generic):
            return native(backend, arg.item(), is_const, specialize_value, align)
        raise TypeError(f"a {type(arg).__name__} cannot be passed to a Triton kernel")
    return specialize


def _naming_binder(make_binder, jit):
    """Triton's binder factory, wrapped so that an argument Triton cannot type is named."""
    def make(sig, kparams, backend):
        binder = make_binder(sig, kparams, backend)

        def bind(*args, **kwargs):
            try:
                return binder(*args, **kwargs)
            except TypeError as e:
                try:
                    bound = sig.bind_partial(*args, **{k: v for k, v in kwargs.items()
                                                       if k in sig.parameters})
                except TypeError:
                    raise e from None
                for kp, (name, v) in zip(kparams, bound.arguments.items()):
                    if kp.is_constexpr:
                        continue
                    try:
                        jit.native_specialize_impl(backend, v, False, True, True)
                    except TypeError as inner:
                        raise TypeError(f"argument `{name}`: {inner}") from None
                raise
        return bind
    return make


def install():
    """Wraps Triton's specialiser and binder factory (once)."""
    if _INSTALLED["done"]:
        return
    import triton.runtime.jit as jit
    jit.native_specialize_impl = _specialize_numpy(jit.native_specialize_impl)
    jit.create_function_from_signature = _naming_binder(jit.create_function_from_signature, jit)
    _INSTALLED["done"] = True
