"""race=True runs the data-race detector of `ptxemu run --race`: a racy launch raises RaceError
(race="warn": a RaceWarning), so a wrong result never passes silently; a race-free one returns.
The verdicts are argued in the fixtures' headers (tests/fixtures/race_kernels/README.md), not
taken from ptxemu."""

import json
import pathlib
import warnings

import numpy as np
import pytest

import ptxemu

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "race_kernels"
REDUCTIONS = FIXTURES / "reductions.ptx"
LAST_BLOCK = FIXTURES / "last_block.ptx"


def reduce(kernel, **kw):
    m = ptxemu.Module(REDUCTIONS)
    x = np.ones(256, dtype=np.float32)
    out = np.zeros(2, dtype=np.float32)
    return m.get_function(kernel)(2, 128, (x, out), **kw), out


def last_block(kernel, **kw):
    m = ptxemu.Module(LAST_BLOCK)
    array = np.ones(256, dtype=np.float32)
    result = np.zeros(4, dtype=np.float32)
    count = np.zeros(1, dtype=np.uint32)
    stats = m.get_function(kernel)(4, 64, (array, 256, result, count), **kw)
    return stats, result


def test_a_missing_syncthreads_raises_race_error_with_every_racing_pair():
    with pytest.raises(ptxemu.RaceError) as e:
        reduce("_Z19reduce_missing_syncPKfPf", race=True)
    races = e.value.races
    assert races and e.value.kernel == "_Z19reduce_missing_syncPKfPf"
    assert e.value.stats.races == races
    assert e.value.kernel_demangled == "reduce_missing_sync(float const*, float*)"
    assert "data races in kernel reduce_missing_sync(float const*, float*)" in str(e.value)
    for r in races:
        for a in (r["first"], r["second"]):
            assert a["space"] == "shared"
            assert a["line"] > 0 and a["instruction"]
            assert a["kind"] in ("read", "write", "atomic")
            # Weak accesses have no scope: None (JSON null), the one spelling.
            assert a["sem"] == "weak" and a["scope"] is None
            assert a["address"].startswith("0x")
        assert r["first"]["cta"] == r["second"]["cta"]
        assert "write" in (r["first"]["kind"], r["second"]["kind"])
        assert r["count"] >= 1 and r["reason"]
        assert r["fence_sc_dependent"] is False
    # Between two warps (the missing __syncthreads), and inside warp 0 (no __syncwarp in the
    # tree's last steps): every pair of instructions, not only the first found.
    assert any(r["first"]["warp"] != r["second"]["warp"] for r in races)
    assert any(r["first"]["warp"] == r["second"]["warp"] for r in races)
    pairs = {(r["first"]["line"], r["second"]["line"]) for r in races}
    assert len(pairs) == len(races)


def test_race_warn_warns_and_returns_the_races():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        stats, _ = reduce("_Z19reduce_missing_syncPKfPf", race="warn")
    raised = [x for x in w if issubclass(x.category, ptxemu.RaceWarning)]
    assert len(raised) == 1
    assert raised[0].message.races == stats.races and stats.races


def test_the_synchronised_reduction_is_silent_and_correct():
    stats, out = reduce("_Z9reduce_okPKfPf", race=True)
    assert stats.races == []
    assert np.array_equal(out, np.full(2, 128, np.float32))


def test_without_race_there_is_no_report():
    stats, _ = reduce("_Z9reduce_okPKfPf")
    assert stats.races is None
    with pytest.raises(ValueError):
        reduce("_Z9reduce_okPKfPf", race="sometimes")


def test_the_guides_last_block_sum_races_under_another_fence_sc_order():
    # The last block runs no acquire after its ticket: the partials are ordered before its
    # reads only when Fence-SC order puts each block's fence before the last block's.
    with pytest.raises(ptxemu.RaceError) as e:
        last_block("_Z19sum_no_reader_fencePKfjPfPj", race=True)
    races = e.value.races
    assert races and all(r["fence_sc_dependent"] for r in races)
    assert {r["second"]["cta"][0] for r in races} == {3}
    # The arrays were copied back: here the sum happens to be right.
    stats, result = last_block("_Z10sum_fencedPKfjPfPj", race=True)
    assert stats.races == [] and result[0] == 256


def test_a_live_report_is_explained_as_the_command_line_explains_it():
    with pytest.raises(ptxemu.RaceError) as e:
        reduce("_Z19reduce_missing_syncPKfPf", race=True)
    races = e.value.races
    text = ptxemu.explain_races(races)
    assert text.startswith(f"{len(races)} data race(s).")
    assert "[yes] neither is before the other in causality order" in text
    assert "racing access pair" in text
    # The same from the JSON text, naming the kernel, and as a picture.
    as_json = json.dumps({"kernel": e.value.kernel, "races": races})
    assert ptxemu.explain_races(as_json).startswith(
        f"{len(races)} data race(s) in kernel reduce_missing_sync(float const*, float*).")
    assert ptxemu.explain_races(races, format="svg").startswith("<svg")
    with pytest.raises(ptxemu.RaceReportError):
        ptxemu.explain_races([{"first": {}}])
