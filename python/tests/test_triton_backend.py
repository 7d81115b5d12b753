"""kernel[grid](...) through Triton's own door: ptxemu's back end, found through the
``triton.backends`` entry point, compiles with NVIDIA's stages to PTX and launches on ptxemu.
Expected values come from numpy."""

import importlib.metadata
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ptxemu
import ptxemu.triton
from triton_support import cdiv, needs_torch, needs_triton, torch, triton, tl

pytestmark = needs_triton

if triton is not None:
    @triton.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m)
        y = tl.load(y_ptr + offs, mask=m)
        tl.store(out_ptr + offs, x + y, mask=m)

    @triton.jit
    def scale(x_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * alpha, mask=m)

    @triton.jit
    def which_target(out_ptr):
        if tl.target_info.is_cuda():
            if tl.target_info.cuda_capability_geq(10, 0):
                tl.store(out_ptr, 100)
            elif tl.target_info.cuda_capability_geq(9, 0):
                tl.store(out_ptr, 90)
            else:
                tl.store(out_ptr, 80)
        else:
            tl.store(out_ptr, -1)

    @triton.jit
    def overrun(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs)  # no mask: reads past the end when n < BLOCK
        tl.store(out_ptr + offs, x, mask=offs < n)

    @triton.jit
    def device_desc_copy(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
        src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
        dst = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1],
                                        block_shape=[BM, BN])
        om = tl.program_id(0) * BM
        dst.store([om, 0], src.load([om, 0]) * 2)

    @triton.jit
    def axpy_inplace(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m),
                 mask=m)


@pytest.fixture(autouse=True)
def sm80():
    ptxemu.triton.set_target("sm_80", gpu="a100")
    yield
    ptxemu.triton.set_target("sm_80", gpu="a100")


def test_the_back_end_is_registered_and_active():
    eps = importlib.metadata.entry_points(group="triton.backends")
    assert any(e.name == "ptxemu" and e.value == "ptxemu.triton_backend" for e in eps)
    from triton.runtime.driver import driver
    from ptxemu.triton_backend.driver import PtxemuDriver
    assert isinstance(driver.active, PtxemuDriver)


def test_vector_add_with_numpy_arrays():
    rng = np.random.default_rng(0)
    n = 3001
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.zeros_like(x)
    add[(cdiv(n, 256),)](x, y, out, n, BLOCK=256)
    assert np.array_equal(out, x + y)


def test_device_arrays_and_a_callable_grid():
    dev = ptxemu.triton.device()
    x = dev.to_device(np.arange(1000, dtype=np.float32))
    out = dev.zeros(1000, np.float32)
    assert x.data_ptr() == x.ptr and x.numel() == 1000 and x.element_size() == 4
    assert x.stride() == (1,) and x.dtype == np.float32
    scale[lambda meta: (cdiv(1000, meta["BLOCK"]),)](x, out, 2.5, 1000, BLOCK=128)
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(1000, dtype=np.float32) * 2.5)


def test_the_same_array_twice_is_one_buffer():
    """y = a*x + y with x and y the same array: CUDA would read and write one buffer."""
    x = np.arange(64, dtype=np.float32)
    want = 3 * x + x
    axpy_inplace[(1,)](x, x, 3.0, 64, BLOCK=64)
    np.testing.assert_array_equal(x, want)


def test_views_of_one_array_alias():
    buf = np.zeros(128, np.float32)
    src = buf[:64]
    src[:] = np.arange(64)
    dst = buf[64:]
    scale[(1,)](src, dst, 2.0, 64, BLOCK=64)
    np.testing.assert_array_equal(buf[64:], 2 * np.arange(64, dtype=np.float32))


def test_a_read_only_array_the_kernel_writes_is_refused():
    x = np.ones(32, np.float32)
    out = np.zeros(32, np.float32)
    out.flags.writeable = False
    with pytest.raises(ptxemu.LaunchError, match="read-only"):
        scale[(1,)](x, out, 2.0, 32, BLOCK=32)
    x.flags.writeable = False
    out2 = np.zeros(32, np.float32)
    scale[(1,)](x, out2, 2.0, 32, BLOCK=32)  # only read: fine
    assert (out2 == 2).all()


@pytest.mark.parametrize("target,want", [("sm_80", 80), ("sm_90a", 90), ("sm_100a", 100)])
def test_is_cuda_and_the_capability_fold_as_on_the_gpu(target, want):
    ptxemu.triton.set_target(target)
    out = np.zeros(1, np.int32)
    which_target[(1,)](out)
    assert out[0] == want


def test_switching_targets_recompiles_and_keeps_each_targets_kernels():
    out = np.zeros(1, np.int32)
    for target, want in [("sm_90a", 90), ("sm_80", 80), ("sm_90a", 90)]:
        ptxemu.triton.set_target(target)
        k = which_target[(1,)](out)
        assert out[0] == want
        assert k.metadata.target.arch == want


def test_a_fault_names_the_python_line():
    x = np.zeros(10, np.float32)
    out = np.zeros(10, np.float32)
    with pytest.raises(ptxemu.Fault) as e:
        overrun[(1,)](x, out, 10, BLOCK=1024)
    f = e.value
    assert f.kind == "out_of_bounds"
    assert f.source_file == __file__
    src = pathlib.Path(__file__).read_text().splitlines()
    assert "x = tl.load(x_ptr + offs)" in src[f.source_line - 1]
    assert f"{__file__}:{f.source_line}" in str(f)
    assert f.line > 0 and f.instruction.startswith(("ld.global", "@"))


def test_argument_errors_name_the_argument():
    dev2 = ptxemu.Device()
    other = dev2.zeros(16, np.float32)
    out = np.zeros(16, np.float32)
    with pytest.raises(ptxemu.LaunchError, match="argument `x_ptr`: a device array of"):
        scale[(1,)](other, out, 1.0, 16, BLOCK=16)
    with pytest.raises(TypeError, match="argument `alpha`: a str cannot be passed"):
        scale[(1,)](np.zeros(16, np.float32), out, "two", 16, BLOCK=16)


def test_target_settings_are_checked():
    with pytest.raises(ValueError, match="sm_80, sm_90a, sm_100a"):
        ptxemu.triton.set_target("sm_75")
    with pytest.raises(ValueError, match="a100, h100, b200"):
        ptxemu.triton.set_target(gpu="v100")


def test_do_bench_measures_emulation_time_and_autotune_picks():
    x = np.ones(4096, np.float32)
    out = np.zeros_like(x)
    ms = triton.testing.do_bench(lambda: scale[(4,)](x, out, 2.0, 4096, BLOCK=1024), rep=20,
                                 warmup=5)
    assert ms > 0

    @triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_warps=2),
                              triton.Config({"BLOCK": 256}, num_warps=4)], key=["n"])
    @triton.jit
    def tuned(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + 1, mask=m)

    out[:] = 0
    tuned[lambda meta: (cdiv(4096, meta["BLOCK"]),)](x, out, 4096)
    assert (out == 2).all()
    assert tuned.best_config.kwargs["BLOCK"] in (64, 256)


SCRIPT = """
import numpy as np
import triton
import triton.language as tl

DEVICE = "ptxemu"  # the one line a GPU user changes (e.g. from torch's "cuda")


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


x = np.random.default_rng(0).standard_normal(5000).astype(np.float32)
out = np.empty_like(x)
add_kernel[lambda meta: (triton.cdiv(x.size, meta["BLOCK"]),)](x, x, out, x.size, BLOCK=1024)
assert np.array_equal(out, x + x), "wrong result"
print("ok", triton.runtime.driver.active.__class__.__name__)
"""


def test_a_plain_triton_script_runs_in_a_fresh_interpreter(tmp_path):
    """No ptxemu import, no monkey-patching: Triton finds the back end by its entry point."""
    script = tmp_path / "user.py"
    script.write_text(SCRIPT)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       env={**__import__("os").environ, "TRITON_CACHE_DIR": str(tmp_path / "c")},
                       timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok PtxemuDriver"


@needs_torch
def test_cpu_torch_tensors_are_copied_in_and_back():
    """Triton's tutorials pass torch tensors on triton.runtime.driver.active.
    get_active_torch_device(), which is the CPU on ptxemu."""
    from triton.runtime.driver import driver
    device = driver.active.get_active_torch_device()
    assert device.type == "cpu"
    x = torch.rand(3000, device=device)
    y = torch.rand(3000, device=device)
    out = torch.empty_like(x)
    add[(cdiv(3000, 1024),)](x, y, out, 3000, BLOCK=1024)
    assert torch.equal(out, x + y)
    # multiples of 1/8 below 8: bf16 sums are exact
    xb = (torch.randint(-64, 64, (3000,)) / 8).to(torch.bfloat16)
    yb = (torch.randint(-64, 64, (3000,)) / 8).to(torch.bfloat16)
    ob = torch.empty_like(xb)
    add[(cdiv(3000, 1024),)](xb, yb, ob, 3000, BLOCK=1024)
    assert torch.equal(ob, (xb.float() + yb.float()).to(torch.bfloat16))


@pytest.mark.parametrize("target", ["sm_90a", "sm_100a"])
def test_num_ctas_runs_clusters(target):
    ptxemu.triton.set_target(target)
    x = np.arange(1024, dtype=np.float32)
    out = np.zeros_like(x)
    k = scale[(4,)](x, out, 3.0, 1024, BLOCK=256, num_ctas=2)
    assert k.metadata.num_ctas == 2
    np.testing.assert_array_equal(out, x * 3)


@pytest.mark.parametrize("target", ["sm_80", "sm_90a", "sm_100a"])
def test_device_side_tensor_descriptors_get_their_scratch(target):
    """tl.make_tensor_descriptor: on sm_90a/sm_100a the maps live in global scratch, from the
    allocator triton.set_allocator installed, else from ptxemu."""
    ptxemu.triton.set_target(target)
    rng = np.random.default_rng(12)
    x = rng.standard_normal((64, 32)).astype(np.float32)
    out = np.zeros_like(x)
    k = device_desc_copy[(4,)](x, out, 64, 32, BM=16, BN=32)
    np.testing.assert_array_equal(out, x * 2)
    if target != "sm_80":
        assert k.metadata.global_scratch_size > 0
    asked = []

    def alloc(size, align, stream):
        asked.append((size, align))
        return ptxemu.triton.device().zeros(size, np.uint8)

    triton.set_allocator(alloc)
    try:
        out[:] = 0
        device_desc_copy[(4,)](x, out, 64, 32, BM=16, BN=32)
        np.testing.assert_array_equal(out, x * 2)
        if target != "sm_80":
            assert asked and asked[0][0] == 4 * k.metadata.global_scratch_size
            ptxemu.triton.set_target(memory_limit=asked[0][0] - 1)
            with pytest.raises(ptxemu.LaunchError, match="memory_limit") as e:
                device_desc_copy[(4,)](x, out, 64, 32, BM=16, BN=32)
            assert e.value.kind == "memory_limit"
    finally:
        from triton.runtime import _allocation
        triton.set_allocator(_allocation.NullAllocator())
        ptxemu.triton._CONFIG.memory_limit = None
