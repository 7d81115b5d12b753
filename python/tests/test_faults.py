"""Every kind of fault raises ptxemu.Fault with the fields of `ptxemu run --json`."""

import pathlib

import numpy as np
import pytest

import ptxemu
from kernels import FAULTS, UNSUPPORTED

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def mod():
    return ptxemu.Module(FAULTS, name="faults.ptx")


def launch(mod, kernel, block=32, args=(), **kw):
    with pytest.raises(ptxemu.Fault) as e:
        mod.get_function(kernel)(1, block, args, **kw)
    f = e.value
    assert f.kernel == kernel
    assert f.cta == (0, 0, 0)
    if f.line:  # a step-budget fault is the launch's, at no instruction
        assert f.file == "faults.ptx"
    assert f.message.startswith(f.detail)
    assert f.stats is not None and f.stats.kernel == kernel
    return f


def test_out_of_bounds(mod):
    dev = ptxemu.Device()
    buf = dev.zeros(16, np.uint32)
    f = launch(mod, "oob", args=(buf,), device=dev)
    assert f.kind == "out_of_bounds"
    assert f.address == buf.ptr + 4096
    assert (f.warp, f.lane, f.thread) == (0, 0, (0, 0, 0))
    assert f.instruction == "ld.global.u32 %r, [%rd+4096];"
    assert FAULTS.splitlines()[f.line - 1].strip() == f.instruction
    assert f.as_dict()["address"] == f"0x{buf.ptr + 4096:x}"


def test_misaligned(mod):
    buf = ptxemu.Device().zeros(16, np.uint32)
    f = launch(mod, "misaligned", args=(buf,))
    assert f.kind == "misaligned"
    assert f.address == buf.ptr + 2
    assert f.lane == 0


def test_barrier_deadlock(mod):
    f = launch(mod, "deadlock", block=64)
    assert f.kind == "barrier_deadlock"


def test_divergent_collective(mod):
    f = launch(mod, "divergent")
    assert f.kind == "divergent_collective"
    assert f.instruction.startswith("shfl.sync")


def test_step_budget(mod):
    f = launch(mod, "spin", max_steps=1000)
    assert f.kind == "step_budget_exhausted"
    assert "1000" in f.detail


def test_trap(mod):
    f = launch(mod, "trapper")
    assert (f.kind, f.instruction) == ("trap", "trap;")


def test_breakpoint(mod):
    f = launch(mod, "breakpoint")
    assert (f.kind, f.instruction) == ("breakpoint", "brkpt;")


def test_undefined(mod):
    f = launch(mod, "bad_barrier")
    assert f.kind == "undefined"
    assert "barrier number 20" in f.detail


def test_assert_failed():
    path = ROOT / "tests/fixtures/kernels/assert_fault/nvcc-O3.ptx"
    m = ptxemu.Module(path)
    v = np.array([0, 1, 2, 3, -4, 5, 6, 7], np.int32)
    with pytest.raises(ptxemu.Fault) as e:
        m.get_function("assert_fault")(1, 8, (v,))
    f = e.value
    assert f.kind == "assert_failed"
    assert "v[i] >= 0" in f.detail
    assert f.thread == (4, 0, 0) and f.lane == 4
    assert f.file == str(path)


def test_unsupported():
    m = ptxemu.Module(UNSUPPORTED)
    with pytest.raises(ptxemu.Fault) as e:
        m.get_function("ws_zero_mask")(1, 1, ())
    assert e.value.kind == "unsupported"
    assert "zero-column-mask-desc" in e.value.detail


def test_refusals_are_not_faults(mod):
    with pytest.raises(ptxemu.LaunchError) as e:
        mod.get_function("nope")
    assert e.value.kind == "no_kernel"
    with pytest.raises(ptxemu.LaunchError) as e:
        mod.get_function("oob")(1, 32, ())
    assert e.value.kind == "arguments"
    with pytest.raises(ptxemu.LaunchError) as e:
        mod.get_function("trapper")(1, 2048, ())
    assert e.value.kind == "launch_limits"
    with pytest.raises(ptxemu.PtxError) as e:
        ptxemu.Module(".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k() { bogus; }\n")
    assert e.value.kind == "parse" and "<string>:4:" in e.value.message


def _no_fence_launch(tmem_check):
    """The tcgen05 fixture that waits for its MMA's commit but reads D without
    tcgen05.fence::after_thread_sync (tests/fixtures/tcgen05/fault_mma_ld_no_fence)."""
    d = ROOT / "tests/fixtures/tcgen05/fault_mma_ld_no_fence"
    m = ptxemu.Module(d / "kernel.ptx")
    img = np.fromfile(d / "inputs/img.bin", np.uint8)
    cin = np.fromfile(d / "inputs/cin.bin", np.uint32)
    afrag = np.fromfile(d / "inputs/afrag.bin", np.uint32)
    out = np.zeros(2048, np.uint32)
    args = (img, cin, out, afrag, np.uint64(70437464178688), np.uint64(70437464178944),
            np.uint32(134479888), np.uint32(1))
    return m.get_function("mma")(1, 128, args, tmem_check=tmem_check)


def test_tmem_check_strict_requires_the_fence():
    _no_fence_launch("on")  # waited for the commit: enough without strict
    with pytest.raises(ptxemu.Fault) as e:
        _no_fence_launch("strict")
    assert "missing: the fence" in e.value.detail
    with pytest.raises(ValueError, match="on, strict or off"):
        _no_fence_launch("sometimes")


def _cu_line(text):
    """The 1-based line of tests/fixtures/lineinfo/lineinfo.cu holding `text`."""
    src = (ROOT / "tests/fixtures/lineinfo/lineinfo.cu").read_text().splitlines()
    return next(i + 1 for i, line in enumerate(src) if text in line)


def test_fault_names_the_source_line_from_loc():
    """PTX from nvcc -lineinfo carries .file/.loc: the fault names the CUDA line (and the call
    site of the inlined helper) beside the PTX line."""
    m = ptxemu.Module(ROOT / "tests/fixtures/lineinfo/lineinfo.ptx")
    x = np.ones(32, np.float32)
    with pytest.raises(ptxemu.Fault) as e:
        m.get_function("read_past_end")(1, 32, (x, np.zeros(32, np.float32), 32))
    f = e.value
    load, call = _cu_line("return p[i] * 2.0f;"), _cu_line("out[i] = fetch(in, i + 1);")
    assert (f.source_file, f.source_line, f.source_column) == ("lineinfo.cu", load, 5)
    assert [c[:2] for c in f.source_inlined_at] == [("lineinfo.cu", call)]
    assert f.line > 0 and f.file.endswith("lineinfo.ptx")
    assert f"source lineinfo.cu:{load}:5, inlined at lineinfo.cu:{call}:" in str(f)
    assert f.as_dict()["source_line"] == load


def test_fault_without_loc_has_no_source(mod):
    buf = ptxemu.Device().zeros(16, np.uint32)
    f = launch(mod, "oob", args=(buf,))
    assert (f.source_file, f.source_line, f.source_column, f.source_inlined_at) == (
        None, None, None, ())
