"""race=True runs the data-race detector of `ptxemu run --race`: the reduction missing its
__syncthreads() races between warps of one CTA in shared memory, the fixed one does not (the
fixtures' verdicts are argued in tests/fixtures/race_kernels/README.md)."""

import pathlib

import numpy as np

import ptxemu

ROOT = pathlib.Path(__file__).resolve().parents[2]
REDUCTIONS = ROOT / "tests" / "fixtures" / "race_kernels" / "reductions.ptx"


def reduce(kernel, **kw):
    m = ptxemu.Module(REDUCTIONS)
    x = np.ones(256, dtype=np.float32)
    out = np.zeros(2, dtype=np.float32)
    return m.get_function(kernel)(2, 128, (x, out), **kw)


def test_a_missing_syncthreads_is_a_shared_memory_race_between_warps():
    stats = reduce("_Z19reduce_missing_syncPKfPf", race=True)
    assert stats.races, "the detector found no race"
    r = stats.races[0]
    for a in (r["first"], r["second"]):
        assert a["space"] == "shared"
        assert a["line"] > 0 and a["instruction"]
        assert a["kind"] in ("read", "write", "atomic")
    assert r["first"]["cta"] == r["second"]["cta"]
    assert r["first"]["warp"] != r["second"]["warp"]
    assert "write" in (r["first"]["kind"], r["second"]["kind"])
    assert r["reason"]


def test_the_synchronised_reduction_is_silent_and_correct():
    stats = reduce("_Z9reduce_okPKfPf", race=True)
    assert stats.races == []


def test_without_race_there_is_no_report():
    assert reduce("_Z9reduce_okPKfPf").races is None


def test_races_name_the_source_line_when_the_ptx_has_loc():
    """nvcc -lineinfo PTX: both accesses of each race carry the CUDA line of `out[0] += in[i]`."""
    src = (ROOT / "tests/fixtures/lineinfo/lineinfo.cu").read_text().splitlines()
    line = next(i + 1 for i, s in enumerate(src) if "out[0] += in[i];" in s)
    m = ptxemu.Module(ROOT / "tests/fixtures/lineinfo/lineinfo.ptx")
    stats = m.get_function("racy_sum")(1, 64, (np.ones(64, np.float32),
                                                np.zeros(1, np.float32)), race=True)
    assert stats.races
    for r in stats.races:
        for a in (r["first"], r["second"]):
            assert (a["source"]["file"], a["source"]["line"]) == ("lineinfo.cu", line)
            assert a["source"]["inlined_at"] == []


def test_races_without_loc_have_no_source():
    stats = reduce("_Z19reduce_missing_syncPKfPf", race=True)
    assert stats.races[0]["first"]["source"] is None
