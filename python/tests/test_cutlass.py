"""CUTLASS 4.2 and CuTe kernels as nvcc 13 emits them (tests/fixtures/cutlass), launched from
Python as a CUTLASS user would: the operands as device arrays, each tensor map made with
`ptxemu.TensorMap.encode_tiled` from the parameters CUTLASS's host code passed to
cuTensorMapEncodeTiled, the Params built with `ptxemu.Struct` over the bytes CUTLASS made,
clusters with `cluster=`. The result is compared with numpy's D = alpha * A @ B + beta * C,
computed here from the committed inputs (exact: the inputs are small integers)."""

import json
import pathlib

import numpy as np
import pytest

import ptxemu

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "tests/fixtures/cutlass"
NAMES = sorted(p.name for p in FIXTURES.iterdir() if (p / "launch.json").exists())
DTYPES = {"f16": np.float16, "f32": np.float32, "s8": np.int8, "s32": np.int32, "u8": np.uint8}


def _spec_array(dev, spec, folder):
    """A device array for a `TYPE[N]:file=PATH` or `TYPE[N]:zero` buffer spec."""
    head, init = spec.split(":", 1)
    ty, n = head[:-1].split("[")
    if init == "zero":
        return dev.zeros(int(n), DTYPES[ty])
    assert init.startswith("file=")
    return dev.to_device(np.fromfile(folder / init[5:], DTYPES[ty]))


def _reference(launch, folder):
    p = launch["problem"]
    M, N, K = p["M"], p["N"], p["K"]
    read = lambda name: np.fromfile(folder / launch["buffers"][name].split("file=")[1],
                                    DTYPES[launch["buffers"][name].split("[")[0]])
    A = read("A").reshape(M, K).astype(np.float64)
    B = read("B").reshape(N, K).astype(np.float64)
    C = read("C").reshape(M, N).astype(np.float64)
    out = launch["output"]
    return (p["alpha"] * (A @ B.T) + p["beta"] * C).astype(DTYPES[out["dtype"]])


def _launch(name, **keywords):
    """Launches fixture `name` as a CUTLASS user would; returns (stats, result, numpy's)."""
    folder = FIXTURES / name
    launch = json.loads((folder / "launch.json").read_text())
    dev = ptxemu.Device()
    arrays = {n: _spec_array(dev, s, folder) for n, s in launch["buffers"].items()}
    mod = ptxemu.Module(folder / "kernel.ptx")
    f = mod.get_function(launch["kernel"])
    if launch["arg_files"]:
        # Separate parameters (the CuTe kernel): pointers as device arrays, CuTe's tuples as
        # the bytes the host program passed.
        args = [arrays[a["buffer"]] if "buffer" in a else (folder / a["file"]).read_bytes()
                for a in launch["arg_files"]]
    else:
        fields = [(r["offset"], (arrays[r["buffer"]], r["add"])) for r in launch["relocations"]]
        for t in launch["tensor_maps"]:
            tm = ptxemu.TensorMap.encode_tiled(
                t["dtype"], (arrays[t["buffer"]], t["add"]), t["dims"], t["strides"], t["box"],
                element_strides=t["estrides"], interleave=t["interleave"], swizzle=t["swizzle"],
                l2_promotion=t["l2"], oob_fill=t["oob"])
            fields.append((t["offset"], tm))
        args = [ptxemu.Struct(fields, base=(folder / "params.bin").read_bytes())]
    stats = f(launch["grid"], launch["block"], args, shared_mem=launch["shared_bytes"],
              cluster=launch["cluster"], **keywords)
    out = launch["output"]
    got = arrays[out["buffer"]].copy_to_host().reshape(out["shape"])
    want = _reference(launch, folder)
    assert np.array_equal(want.reshape(-1), np.fromfile(folder / out["file"], want.dtype))
    return stats, got, want


@pytest.mark.parametrize("name", NAMES)
def test_cutlass_kernel_from_python(name):
    stats, got, want = _launch(name)
    assert np.array_equal(got, want), np.argwhere(got != want)[:5]
    assert stats.warp_instructions > 0


CLC = [n for n in NAMES if n.endswith("_clc")]


@pytest.mark.parametrize("name", CLC)
def test_every_cancel_policy_computes_each_tile_once(name):
    """CUTLASS's clusterlaunchcontrol scheduler: whether try_cancel succeeds or fails, each
    tile is computed exactly once, so numpy's result comes out under every policy."""
    launch = json.loads((FIXTURES / name / "launch.json").read_text())
    per_cluster = int(np.prod(launch["cluster"]))
    clusters = int(np.prod(launch["grid"])) // per_cluster
    stats, got, want = _launch(name, try_cancel="fail")
    assert np.array_equal(got, want) and stats.clusters_canceled == 0
    for seed in ("random:1", "random:7"):
        stats, got, want = _launch(name, try_cancel=seed, threads=1)
        assert np.array_equal(got, want), seed
    # One cluster resident at a time, as on a full GPU: it cancels every other launch.
    stats, got, want = _launch(name, resident_ctas=per_cluster)
    assert np.array_equal(got, want)
    assert stats.clusters_canceled == clusters - 1
    with pytest.raises(ptxemu.LaunchError, match="try_cancel"):
        _launch(name, try_cancel="sometimes")


NSMID = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %nsmid;
    st.global.u32 [%rd1], %r1;
    ret;
}
"""


@pytest.mark.parametrize("gpu, sms", [("h100", 132), ("b200", 148), ("a100", 108)])
def test_the_gpu_reports_its_sm_count(gpu, sms):
    """%nsmid is what the named GPU reports (H100 SXM 132 SMs, B200 148, A100 108, from
    NVIDIA's data sheets), and sms= overrides it, as --sms does."""
    f = ptxemu.Module(NSMID, gpu=gpu).get_function("k")
    out = np.zeros(1, np.uint32)
    f(1, 1, (out,))
    assert out[0] == sms
    f(1, 1, (out,), sms=7)
    assert out[0] == 7


def test_the_gpu_limits_shared_memory_per_cta():
    """The opt-in shared-memory limit per CTA: 163 KiB on an A100, 227 KiB on an H100
    (NVIDIA's tuning guides); a launch asking for more is refused, as the driver refuses it."""
    out = np.zeros(1, np.uint32)
    ptxemu.Module(NSMID, gpu="h100").get_function("k")(1, 1, (out,), shared_mem=200 * 1024)
    with pytest.raises(ptxemu.LaunchError):
        ptxemu.Module(NSMID, gpu="a100").get_function("k")(1, 1, (out,), shared_mem=200 * 1024)
    with pytest.raises(ptxemu.LaunchError):
        ptxemu.Module(NSMID, gpu="h100").get_function("k")(1, 1, (out,), shared_mem=228 * 1024)


def _one_tensor_map_fixture():
    for name in NAMES:
        launch = json.loads((FIXTURES / name / "launch.json").read_text())
        if launch["tensor_maps"]:
            return launch
    pytest.skip("no fixture with tensor maps")


def test_tensor_maps_are_checked_as_the_driver_checks_them():
    dev = ptxemu.Device()
    a = dev.zeros(64 * 64, np.float16)
    ok = ptxemu.TensorMap.encode_tiled("f16", a, [64, 64], [128], [64, 8], swizzle="128B")
    assert len(bytes(ok)) == 128 and ok.device is dev
    assert ptxemu.TensorMap.encode_tiled(6, (a, 256), [64, 32], [128], [64, 8]).params["address"] \
        == a.ptr + 256
    with pytest.raises(ptxemu.TensorMapError, match=r"globalStrides\[0\]"):
        ptxemu.TensorMap.encode_tiled("f16", a, [64, 64], [100], [64, 8])
    with pytest.raises(ptxemu.TensorMapError, match=r"boxDim\[1\]"):
        ptxemu.TensorMap.encode_tiled("f16", a, [64, 64], [128], [64, 300])
    with pytest.raises(ptxemu.TensorMapError, match="16-byte aligned"):
        ptxemu.TensorMap.encode_tiled("f16", (a, 8), [64, 64], [128], [64, 8])
    with pytest.raises(ptxemu.TensorMapError, match="swizzle"):
        ptxemu.TensorMap.encode_tiled("f16", a, [64, 64], [128], [64, 8], swizzle="96B")
    with pytest.raises(ptxemu.TensorMapError, match="tensorDataType"):
        ptxemu.TensorMap.encode_tiled("q7", a, [64, 64], [128], [64, 8])
    with pytest.raises(ptxemu.TensorMapError, match="DeviceArray"):
        ptxemu.TensorMap.encode_tiled("f16", np.zeros(8), [64, 64], [128], [64, 8])
    im = ptxemu.TensorMap.encode_im2col("f16", a, [16, 8, 8, 2], [32, 256, 2048], [-1, -1],
                                        [-1, -1], 16, 8)
    assert im.params["im2col"]


def test_structs_lay_out_addresses_maps_and_scalars():
    dev = ptxemu.Device()
    a = dev.zeros(256, np.float32)
    tm = ptxemu.TensorMap.encode_tiled("f32", a, [256], [], [64])
    s = ptxemu.Struct([(0, np.int32(7)), (8, a), (16, (a, 64)), (64, tm)])
    b = bytes(s)
    assert len(b) == 192
    assert np.frombuffer(b[:4], np.int32)[0] == 7
    assert int.from_bytes(b[8:16], "little") == a.ptr
    assert int.from_bytes(b[16:24], "little") == a.ptr + 64
    assert b[64:192] == bytes(tm)
    assert s.devices == {dev.id: dev}
    base = bytes(range(32))
    p = ptxemu.Struct([(8, a)], base=base)
    assert bytes(p)[:8] == base[:8] and bytes(p)[16:] == base[16:]
    with pytest.raises(ValueError, match="overlap"):
        ptxemu.Struct([(0, a), (4, np.int32(1))])
    with pytest.raises(ValueError, match="aligned to 64"):
        ptxemu.Struct([(32, tm)])
    with pytest.raises(ValueError, match="past the struct"):
        ptxemu.Struct([(8, a)], size=12)
    with pytest.raises(TypeError, match="numpy scalar"):
        ptxemu.Struct([(0, 5)])


def test_the_device_comes_from_the_arguments():
    launch = _one_tensor_map_fixture()
    folder = FIXTURES / [n for n in NAMES if json.loads(
        (FIXTURES / n / "launch.json").read_text()) == launch][0]
    mod = ptxemu.Module(folder / "kernel.ptx")
    f = mod.get_function(launch["kernel"])
    d1, d2 = ptxemu.Device(), ptxemu.Device()
    x1, x2 = d1.zeros(16, np.uint8), d2.zeros(16, np.uint8)
    params = (folder / "params.bin").read_bytes()
    # Arrays of two devices in one struct: refused.
    with pytest.raises(ptxemu.LaunchError, match="several devices"):
        f(launch["grid"], launch["block"], [ptxemu.Struct([(0, x1), (8, x2)], base=params)])
    # Raw bytes name no device, and two exist: refused rather than run on a guess.
    with pytest.raises(ptxemu.LaunchError, match="several devices exist"):
        f(launch["grid"], launch["block"], [params])
    # A struct naming d2's array, with device=d1: refused.
    with pytest.raises(ptxemu.LaunchError, match="another device"):
        f(launch["grid"], launch["block"], [ptxemu.Struct([(0, x2)], base=params)], device=d1)
