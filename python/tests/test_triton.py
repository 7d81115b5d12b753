"""ptxemu.triton.launch: a stand-in for triton.compile's object built from the committed corpus
(always), and a kernel compiled by Triton for sm_80 here (when Triton is installed)."""

import collections
import json
import pathlib
import types

import numpy as np
import pytest

import ptxemu
import ptxemu.triton

CORPUS = pathlib.Path(__file__).resolve().parents[2] / "tests/fixtures/triton/corpus"


def stand_in(tag, name):
    """An object with what ptxemu.triton.launch reads of a CompiledKernel: asm["ptx"] and
    metadata (a namedtuple, as Triton's KernelMetadata is)."""
    d = json.loads((CORPUS / tag / f"{name}.json").read_text())
    meta = collections.namedtuple("KernelMetadata", d.keys())(**d)
    return types.SimpleNamespace(asm={"ptx": (CORPUS / tag / f"{name}.ptx").read_text()},
                                 metadata=meta, name=name)


def test_corpus_vector_add():
    k = stand_in("vector_add.nodiv.sm80", "vector_add")
    rng = np.random.default_rng(1)
    n = 3000
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    stats = ptxemu.triton.launch(k, -(-n // 1024), x, y, out, n)
    assert stats.block == (128, 1, 1)  # num_warps = 4
    assert np.array_equal(out, x + y)


def test_corpus_softmax_with_device_arrays():
    k = stand_in("softmax.nodiv.sm80", "softmax")
    rng = np.random.default_rng(2)
    rows, cols = 5, 200
    a = rng.standard_normal((rows, cols)).astype(np.float32)
    dev = ptxemu.Device()
    din, dout = dev.to_device(a), dev.zeros((rows, cols), np.float32)
    stats = ptxemu.triton.launch(k, rows, dout, din, cols, cols, cols)
    assert stats.shared_bytes == json.loads(
        (CORPUS / "softmax.nodiv.sm80/softmax.json").read_text())["shared"]
    e = np.exp(a.astype(np.float64) - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(dout.copy_to_host(), e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def test_wrong_argument_count_is_refused():
    k = stand_in("vector_add.nodiv.sm80", "vector_add")
    with pytest.raises(ptxemu.LaunchError, match="scratch"):
        ptxemu.triton.launch(k, 1, np.zeros(4, np.float32))


try:
    import triton
    import triton.language as tl
except ImportError:  # pragma: no cover - depends on the machine
    triton = None

needs_triton = pytest.mark.skipif(triton is None, reason="Triton is not installed: "
                                  "`pip install triton` to run the compiled-kernel test")

if triton is not None:
    @triton.jit
    def add_scaled(x_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x * alpha + 1.0, mask=mask)


@needs_triton
def test_compiled_for_sm80_without_a_gpu(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "1")
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    src = ASTSource(add_scaled, {"x_ptr": "*fp32", "out_ptr": "*fp32", "alpha": "fp32",
                                 "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 256})
    kernel = triton.compile(src, target=GPUTarget("cuda", 80, 32))
    x = np.linspace(-3, 3, 1000, dtype=np.float32)
    out = np.zeros_like(x)
    ptxemu.triton.launch(kernel, -(-x.size // 256), x, out, 0.5, x.size)
    np.testing.assert_allclose(out, x * np.float32(0.5) + 1, rtol=1e-6)
