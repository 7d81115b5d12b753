"""Device arrays: round trips of every dtype, persistence across launches, module variables,
scalar parameters typed by the kernel's parameters."""

import numpy as np
import pytest

import ptxemu
from kernels import COPY

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


@pytest.fixture(scope="module")
def mod():
    return ptxemu.Module(COPY, name="copy.ptx")


def sample(dtype, n=37):
    rng = np.random.default_rng(7)
    raw = rng.integers(0, 256, n * np.dtype(dtype).itemsize, dtype=np.uint8)
    a = raw.view(dtype).copy()
    if dtype is np.bool_:
        a = raw[:n] % 2 == 1
    return a


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_round_trip(mod, dtype):
    dev = ptxemu.Device()
    a = sample(dtype).reshape(-1, 1)
    d = dev.to_device(a)
    assert d.shape == a.shape and d.dtype == a.dtype
    back = d.copy_to_host()
    assert back.tobytes() == a.tobytes()
    # Through a kernel: a byte-for-byte copy on the device.
    out = dev.zeros(a.shape, dtype)
    mod.get_function("copy_bytes")(-(-a.nbytes // 128), 128, (d, out, a.nbytes))
    assert out.copy_to_host().tobytes() == a.tobytes()
    # A numpy array passed straight to a kernel is copied in and back.
    host = np.zeros_like(a)
    mod.get_function("copy_bytes")(-(-a.nbytes // 128), 128, (d, host, a.nbytes))
    assert host.tobytes() == a.tobytes()


def test_non_contiguous_and_byte_swapped(mod):
    dev = ptxemu.Device()
    a = np.arange(40, dtype=np.int32).reshape(5, 8)[:, ::2]
    assert np.array_equal(dev.to_device(a).copy_to_host(), a)
    b = np.arange(10, dtype=">f4")
    assert np.array_equal(dev.to_device(b).copy_to_host(), b)
    host = np.zeros((5, 8), np.int32)[:, ::2]  # a strided output is written back too
    mod.get_function("copy_bytes")(1, 128, (dev.to_device(a), host, a.nbytes))
    assert np.array_equal(host, a)


def test_persistence_across_launches(mod):
    dev = ptxemu.Device()
    x = dev.zeros(32, np.float32)
    add = mod.get_function("add_f32")
    for k in range(5):
        add(1, 32, (x, 1.5, 32))
    add(1, 32, (x, np.float32(-0.25), np.int32(16)))
    want = np.full(32, 7.5, np.float32)
    want[:16] -= 0.25
    assert np.array_equal(x.copy_to_host(), want)


def test_devices_are_separate(mod):
    d1, d2 = ptxemu.Device(), ptxemu.Device()
    x1, x2 = d1.zeros(4, np.float32), d2.zeros(4, np.float32)
    mod.get_function("add_f32")(1, 4, (x1, 1.0, 4))
    mod.get_function("add_f32")(1, 4, (x2, 2.0, 4))
    assert list(x1.copy_to_host()) == [1.0] * 4 and list(x2.copy_to_host()) == [2.0] * 4
    with pytest.raises(ptxemu.LaunchError):
        mod.get_function("copy_bytes")(1, 4, (x1, x2, 4))


def test_scalars_typed_by_parameters(mod):
    out = np.zeros(5, np.int64)
    mod.get_function("store_scalars")(1, 1, (out, -5, 65535, -(1 << 40), 0.1, 0xFFFFFFFF))
    assert list(out[:3]) == [-5, 65535, -(1 << 40)]
    assert out[3:4].view(np.float64)[0] == 0.1
    assert out[4] == 0xFFFFFFFF
    f = mod.get_function("store_scalars")
    with pytest.raises(ptxemu.LaunchError, match="does not fit"):
        f(1, 1, (out, 128, 0, 0, 0.0, 0))
    with pytest.raises(ptxemu.LaunchError, match="does not fit"):
        f(1, 1, (out, 0, -1, 0, 0.0, 0))
    with pytest.raises(ptxemu.LaunchError, match="byte"):
        f(1, 1, (out, np.int32(1), 0, 0, 0.0, 0))
    with pytest.raises(ptxemu.LaunchError, match="cannot be passed"):
        f(1, 1, (out, 1.5, 0, 0, 0.0, 0))


def test_module_variables(mod):
    dev = ptxemu.Device()
    mod.set_global("scale", np.array([1, 2, 3, 4], np.float32), device=dev)
    out = dev.zeros(4, np.float32)
    bump = mod.get_function("bump")
    bump(1, 4, (out,))
    bump(1, 4, (out,))
    assert list(out.copy_to_host()) == [2, 4, 6, 8]
    assert mod.get_global("counter", np.uint32, device=dev)[0] == 2
    assert list(mod.get_global("scale", np.float32, device=dev)) == [1, 2, 3, 4]
    mod.set_global("counter", np.uint32(10), device=dev)
    bump(1, 4, (out,))
    assert list(out.copy_to_host()) == [11, 22, 33, 44]
    with pytest.raises(ptxemu.VariableError):
        mod.set_global("scale", np.zeros(5, np.float32), device=dev)
    with pytest.raises(ptxemu.VariableError):
        mod.get_global("nothing", device=dev)


def test_freed_array_faults(mod):
    dev = ptxemu.Device()
    a = dev.zeros(8, np.uint8)
    b = dev.zeros(8, np.uint8)
    a.free()
    with pytest.raises(ptxemu.Fault) as e:
        mod.get_function("copy_bytes")(1, 8, (a, b, 8))
    assert e.value.kind == "out_of_bounds"


def test_two_modules_share_a_device(mod):
    other = ptxemu.Module(COPY, name="copy-again.ptx")  # its own `counter` and `scale`
    dev = ptxemu.Device()
    x = dev.zeros(4, np.float32)
    mod.set_global("scale", np.ones(4, np.float32), device=dev)
    other.set_global("scale", np.full(4, 10, np.float32), device=dev)
    mod.get_function("bump")(1, 4, (x,))
    y = dev.zeros(4, np.float32)
    other.get_function("copy_bytes")(1, 16, (x, y, 16))  # one module reads the other's output
    other.get_function("bump")(1, 4, (x,))
    assert list(y.copy_to_host()) == [1, 1, 1, 1]
    assert list(x.copy_to_host()) == [10, 10, 10, 10]
    assert mod.get_global("counter", np.uint32, device=dev)[0] == 1
    assert other.get_global("counter", np.uint32, device=dev)[0] == 1


def test_python_threads(mod):
    import threading
    dev = ptxemu.Device()
    xs = [dev.zeros(32, np.float32) for _ in range(4)]
    add = mod.get_function("add_f32")

    def work(x):
        for _ in range(50):
            add(1, 32, (x, 1.0, 32))
            x.copy_to_host()

    threads = [threading.Thread(target=work, args=(x,)) for x in xs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for x in xs:
        assert np.array_equal(x.copy_to_host(), np.full(32, 50, np.float32))
