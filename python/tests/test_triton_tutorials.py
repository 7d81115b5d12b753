"""Triton's tutorials through ``kernel[grid](...)`` on ptxemu, at every target Triton supports
(sm_80, sm_90a, sm_100a), checked against numpy. The kernels (tutorial_kernels.py) are written
after the tutorials; only the device differs from a GPU run: the arguments are numpy arrays
(or ptxemu device arrays where the tutorial needs device addresses)."""

import numpy as np
import pytest

import ptxemu
import ptxemu.triton
from triton_support import cdiv, needs_triton, triton

pytestmark = needs_triton

if triton is not None:
    import tutorial_kernels as K

TARGETS = ["sm_80", "sm_90a", "sm_100a"]


@pytest.fixture(params=TARGETS)
def target(request):
    ptxemu.triton.set_target(request.param)
    yield request.param
    ptxemu.triton.set_target("sm_80", gpu="a100")


def halves(rng, shape, lim=8):
    """fp16 values that are multiples of 1/8 in [-lim, lim]: products and short sums are exact,
    so a matmul's result depends only on the accumulator's precision."""
    return (rng.integers(-lim * 8, lim * 8 + 1, size=shape) / 8).astype(np.float16)


def test_vector_add(target):
    rng = np.random.default_rng(1)
    n = 98_432 // 16
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    c = np.empty_like(a)
    K.vector_add[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](a, b, c, n, BLOCK=1024)
    assert np.array_equal(c, a + b)


def test_fused_softmax(target):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((37, 181)).astype(np.float32)
    y = np.empty_like(x)
    block = triton.next_power_of_2(x.shape[1])
    K.softmax_rows[(8,)](y, x, x.strides[0] // 4, y.strides[0] // 4, x.shape[0], x.shape[1],
                         BLOCK=block, STAGES=2, num_warps=4)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=2e-6, atol=1e-7)


def test_matmul(target):
    rng = np.random.default_rng(3)
    M, N, Kd = 96, 80, 64
    a, b = halves(rng, (M, Kd)), halves(rng, (Kd, N))
    c = np.empty((M, N), np.float16)
    BM, BN, BK = 32, 32, 32
    grid = (cdiv(M, BM) * cdiv(N, BN),)
    K.matmul[grid](a, b, c, M, N, Kd, Kd, 1, N, 1, N, 1, BM=BM, BN=BN, BK=BK, GROUP=2)
    # exact in float32 (multiples of 1/64, |sum| < 2^11), then one rounding to fp16
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
    np.testing.assert_array_equal(c, want)


def philox_uniform(seed, offsets):
    """tl.rand(seed, offsets): Philox 4x32 with 10 rounds, counter (offset, 0, 0, 0), key
    (seed low, seed high); the first word mapped to [0, 1) as Triton does."""
    M32 = np.uint64(0xFFFFFFFF)
    c0 = offsets.astype(np.uint64)
    c1 = np.zeros_like(c0)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    k0 = np.uint64(seed & 0xFFFFFFFF)
    k1 = np.uint64((seed >> 32) & 0xFFFFFFFF)
    A, B = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    for _ in range(10):
        p0, p2 = A * c0, B * c2
        c0, c1, c2, c3 = ((p2 >> np.uint64(32)) ^ c1 ^ k0, p2 & M32,
                          (p0 >> np.uint64(32)) ^ c3 ^ k1, p0 & M32)
        k0 = (k0 + np.uint64(0x9E3779B9)) & M32
        k1 = (k1 + np.uint64(0xBB67AE85)) & M32
    x = c0.astype(np.uint32).view(np.int32).astype(np.int64)
    x = np.where(x < 0, -x - 1, x)
    return x.astype(np.float32) * np.float32(4.6566127342e-10)


def test_low_memory_dropout(target):
    rng = np.random.default_rng(4)
    n, p, seed = 5000, 0.3, 123_456_789
    x = rng.standard_normal(n).astype(np.float32)
    out = np.empty_like(x)
    K.seeded_dropout[(cdiv(n, 1024),)](x, out, n, p, seed, BLOCK=1024)
    keep = philox_uniform(seed, np.arange(n)) > np.float32(p)
    want = np.where(keep, x / np.float32(1 - p), np.float32(0))
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=0)
    assert 0.25 < 1 - keep.mean() < 0.35


def test_layer_norm(target):
    rng = np.random.default_rng(5)
    rows, N = 6, 700
    x = rng.standard_normal((rows, N)).astype(np.float32)
    w, b = rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32)
    y = np.empty_like(x)
    mean, rstd = np.empty(rows, np.float32), np.empty(rows, np.float32)
    K.layer_norm[(rows,)](x, y, w, b, mean, rstd, N, N, 1e-5, BLOCK=256)
    x64 = x.astype(np.float64)
    mu = x64.mean(axis=1)
    r = 1 / np.sqrt(x64.var(axis=1) + 1e-5)
    np.testing.assert_allclose(mean, mu, rtol=0, atol=1e-6)
    np.testing.assert_allclose(rstd, r, rtol=1e-5)
    np.testing.assert_allclose(y, (x64 - mu[:, None]) * r[:, None] * w + b, rtol=1e-4, atol=1e-5)


def test_fused_attention(target):
    rng = np.random.default_rng(6)
    heads, L, D = 2, 64, 32
    q, k, v = (rng.standard_normal((heads, L, D)).astype(np.float16) for _ in range(3))
    o = np.empty_like(q)
    scale = D ** -0.5
    K.attention[(cdiv(L, 32), heads)](q, k, v, o, scale, L, D=D, BM=32, BN=32)
    s = np.einsum("hld,hmd->hlm", q.astype(np.float64), k.astype(np.float64)) * scale
    pm = np.exp(s - s.max(axis=-1, keepdims=True))
    want = np.einsum("hlm,hmd->hld", pm / pm.sum(axis=-1, keepdims=True), v.astype(np.float64))
    # P is rounded to fp16 before its product with V, as on the GPU
    np.testing.assert_allclose(o.astype(np.float64), want, rtol=0, atol=2e-2)


def test_grouped_gemm(target):
    rng = np.random.default_rng(7)
    dev = ptxemu.triton.device()
    shapes = [(32, 48, 32), (64, 32, 64), (16, 16, 48)]
    A = [halves(rng, (m, k)) for m, n, k in shapes]
    B = [halves(rng, (k, n)) for m, n, k in shapes]
    dA = [dev.to_device(a) for a in A]
    dB = [dev.to_device(b) for b in B]
    dC = [dev.zeros((m, n), np.float16) for m, n, k in shapes]
    addrs = [np.array([x.data_ptr() for x in xs], np.int64) for xs in (dA, dB, dC)]
    sizes = np.array(shapes, np.int32).reshape(-1)
    lds = np.array([(k, n, n) for m, n, k in shapes], np.int32).reshape(-1)
    progs = 4
    K.grouped_gemm[(progs,)](*addrs, sizes, lds, len(shapes), NUM_PROGS=progs, BM=16, BN=16,
                             BK=16)
    for a, b, c in zip(A, B, dC):
        want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
        np.testing.assert_array_equal(c.copy_to_host(), want)


def test_persistent_matmul(target):
    rng = np.random.default_rng(8)
    M, N, Kd = 80, 64, 64
    a, b = halves(rng, (M, Kd)), halves(rng, (Kd, N))
    c = np.empty((M, N), np.float16)
    sms = triton.runtime.driver.active.utils.get_device_properties(0)["multiprocessor_count"]
    progs = min(sms, 3)
    K.persistent_matmul[(progs,)](a, b, c, M, N, Kd, NUM_PROGS=progs, BM=32, BN=32, BK=32)
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
    np.testing.assert_array_equal(c, want)


def test_persistent_matmul_with_host_tensor_descriptors(target):
    from triton.tools.tensor_descriptor import TensorDescriptor
    rng = np.random.default_rng(9)
    M, N, Kd, BM, BN, BK = 64, 64, 64, 32, 32, 32
    dev = ptxemu.triton.device()
    a, b = halves(rng, (M, Kd)), halves(rng, (Kd, N))
    da, db, dc = dev.to_device(a), dev.to_device(b), dev.zeros((M, N), np.float16)
    descs = [TensorDescriptor.from_tensor(t, blk) for t, blk in
             ((da, [BM, BK]), (db, [BK, BN]), (dc, [BM, BN]))]
    K.descriptor_matmul[(M // BM, N // BN)](*descs, Kd, BM=BM, BN=BN, BK=BK)
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
    np.testing.assert_array_equal(dc.copy_to_host(), want)


E4M3_EIGHTHS = None


def e4m3(rng, shape):
    """e4m3 bytes of multiples of 1/8 in [-2, 2] (exactly representable), and their values."""
    vals = rng.integers(-16, 17, size=shape) / 8
    out = np.zeros(shape, np.uint8)
    for i, v in np.ndenumerate(vals):
        s = 0x80 if v < 0 else 0
        m = abs(v)
        if m == 0:
            out[i] = s
            continue
        e = int(np.floor(np.log2(m)))
        if e < -6:  # subnormal: m = f/8 * 2^-6
            out[i] = s | int(round(m * 2 ** 9))
        else:
            f = int(round((m / 2 ** e - 1) * 8))
            out[i] = s | ((e + 7) << 3) | f
    return out, vals


def test_block_scaled_matmul(target):
    if target == "sm_80":
        # The tutorial's mxfp8 operands are e4m3 ("fp8e4nv"), which Triton does not compile
        # below sm_89: the error names the type and the target's supported ones.
        a = np.zeros((32, 64), np.uint8)
        with pytest.raises(triton.compiler.errors.CompilationError) as e:
            K.scaled_matmul[(1, 1)](a, a, a, a, np.zeros((32, 32), np.float32), 32, 32, 64,
                                    BM=32, BN=32, BK=64)
        assert "fp8e4nv not supported in this architecture" in str(e.value.__cause__ or e.value)
        return
    rng = np.random.default_rng(10)
    M, N, Kd = 32, 32, 64
    a, av = e4m3(rng, (M, Kd))
    bT, bv = e4m3(rng, (N, Kd))
    b = np.ascontiguousarray(bT.T)
    sa = rng.integers(125, 130, size=(M, Kd // 32)).astype(np.uint8)  # 2^(s-127)
    sb = rng.integers(125, 130, size=(N, Kd // 32)).astype(np.uint8)
    c = np.empty((M, N), np.float32)
    K.scaled_matmul[(1, 1)](a, b, sa, sb, c, M, N, Kd, BM=32, BN=32, BK=64)
    fa = av * np.repeat(2.0 ** (sa.astype(np.float64) - 127), 32, axis=1)
    fb = bv * np.repeat(2.0 ** (sb.astype(np.float64) - 127), 32, axis=1)
    np.testing.assert_array_equal(c, (fa @ fb.T).astype(np.float32))


def test_fp16_accumulate_matmul_reads_accumulators_as_the_gpu_does(target):
    """tl.dot(..., out_dtype=fp16): on sm_90a Triton unpacks the wgmma accumulators before its
    wgmma.wait_group; ptxas makes the GPU wait there (tests/fixtures/wgmma/triton_f16_acc)."""
    rng = np.random.default_rng(11)
    a = rng.integers(-2, 3, size=(64, 64)).astype(np.float16)
    b = rng.integers(-2, 3, size=(64, 64)).astype(np.float16)
    c = np.zeros((64, 64), np.float16)
    k = K.matmul_f16_acc[(1,)](a, b, c, 64, BM=64, BN=64, BK=32)
    np.testing.assert_array_equal(c, (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16))
    if target == "sm_90a":
        with pytest.raises(ptxemu.Fault) as e:
            ptxemu.triton.launch(k, 1, a, b, c, 64, wgmma_check="strict")
        assert e.value.kind == "undefined" and "before wgmma.wait_group" in e.value.detail
