"""Kernels and buffers named as a C++ programmer knows them (issue 39 item 4): get_function takes
the mangled name, the demangled signature or a unique base name; messages show demangled names;
a race names the argument whose buffer it touched by its PTX parameter name and index. Expected
names come from GNU c++filt (emu/tests/kernel_names/cxxfilt.tsv), buffers and offsets from the
fixtures' CUDA sources (tests/fixtures/race_kernels/*.cu), not from ptxemu."""

import pathlib

import numpy as np
import pytest

import ptxemu

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "race_kernels"
TEMPLATES = ROOT / "tests" / "fixtures" / "public" / "cuda_samples_reduction" / "kernel.ptx"
CXXFILT = dict(
    line.split("\t", 1)
    for line in (ROOT / "emu" / "tests" / "kernel_names" / "cxxfilt.tsv").read_text().splitlines()
    if line and not line.startswith("#")
)


def test_get_function_takes_the_mangled_name_the_signature_and_the_base_name():
    m = ptxemu.Module(FIXTURES / "reductions.ptx")
    mangled = "_Z19reduce_missing_syncPKfPf"
    sig = CXXFILT[mangled]
    for name in (mangled, sig, "reduce_missing_sync(const float *, float *)",
                 "reduce_missing_sync"):
        f = m.get_function(name)
        assert (f.name, f.demangled) == (mangled, sig), name
    # The same kernel object, however it was named.
    assert m.get_function("reduce_missing_sync") is m.get_function(mangled)


def test_an_ambiguous_base_name_lists_the_candidates():
    m = ptxemu.Module(TEMPLATES)
    instances = [k for k in m.kernels() if CXXFILT[k].startswith("void reduce4<")]
    assert len(instances) == 30
    with pytest.raises(ptxemu.LaunchError) as e:
        m.get_function("reduce4")
    assert e.value.kind == "no_kernel"
    for k in instances:
        assert CXXFILT[k] in str(e.value) and k in str(e.value)
    one = instances[0]
    assert m.get_function(CXXFILT[one]).name == one


def test_an_unknown_name_lists_every_kernel():
    m = ptxemu.Module(FIXTURES / "reductions.ptx")
    with pytest.raises(ptxemu.LaunchError) as e:
        m.get_function("reduce")
    assert e.value.kind == "no_kernel"
    assert "no kernel named `reduce`" in str(e.value)
    for k in m.kernels():
        assert k in str(e.value) and CXXFILT[k] in str(e.value)


def test_a_fault_shows_the_demangled_name_and_keeps_the_mangled_one():
    f = ptxemu.Module(FIXTURES / "reductions.ptx").get_function("reduce_ok")
    with pytest.raises(ptxemu.Fault) as e:
        # 16 inputs for 256 threads: thread 16 reads past the end of argument 0.
        f(2, 128, (np.ones(16, np.float32), np.zeros(2, np.float32)))
    sig = CXXFILT["_Z9reduce_okPKfPf"]
    assert e.value.kernel == "_Z9reduce_okPKfPf"
    assert e.value.kernel_demangled == sig
    assert f"in kernel `{sig}`" in str(e.value)
    assert e.value.stats.kernel_demangled == sig


def test_a_race_names_its_buffer_by_parameter_name_and_index():
    # sync_scopes.cu: CTA c writes partial[c] (argument 0); the last CTA reads them all
    # without a fence, so each race is on argument 0 at byte 4 * (the writer's CTA).
    m = ptxemu.Module(FIXTURES / "sync_scopes.ptx")
    partial = np.zeros(8, np.uint32)
    with pytest.raises(ptxemu.RaceError) as e:
        m.get_function("last_block_nofence")(
            8, 32, (partial, np.zeros(1, np.uint32), np.zeros(1, np.uint32)), race=True)
    name = "_Z18last_block_nofencePjS_S__param_0"
    assert e.value.kernel_demangled == CXXFILT["_Z18last_block_nofencePjS_S_"]
    for r in e.value.races:
        writer = r["first"]["cta"][0]
        for a in (r["first"], r["second"]):
            assert a["argument"] == {"index": 0, "name": name, "offset": 4 * writer}
    assert f"of `{name}`, arg 0, byte 0," in str(e.value)
