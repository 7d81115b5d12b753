"""Litmus tests from Python: the fields of `ptxemu litmus --json`, and explanations."""

import json
import pathlib
import subprocess
import warnings

import pytest

import ptxemu

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIB = ROOT / "litmus/tests/library"
CLI = ROOT / "target/release/ptxemu"

# Message passing: with fences (acq_rel) the stale read is forbidden by the PTX model; with
# relaxed accesses only, it is allowed; under SC it is forbidden (the textbook verdicts).
VERDICTS = [("MP+fences", "ptx-v7.5", False), ("MP+rlx", "ptx-v7.5", True),
            ("MP+rlx", "sc", False)]


@pytest.mark.parametrize("name,model,holds", VERDICTS)
def test_verdicts(name, model, holds):
    r = ptxemu.litmus(LIB / f"{name}.litmus", model=model)
    assert (r["test"], r["model"], r["holds"]) == (name, model, holds)


def test_text_and_path_agree():
    path = LIB / "MP+fences.litmus"
    by_path, by_text = ptxemu.litmus(path), ptxemu.litmus(path.read_text())
    for k in ("holds", "states", "candidates", "allowed", "condition"):
        assert by_path[k] == by_text[k]


@pytest.mark.skipif(not CLI.exists(), reason=f"{CLI} is not built (cargo build --release)")
def test_same_fields_as_the_cli():
    path = LIB / "MP+fences.litmus"
    out = subprocess.run([str(CLI), "litmus", "--json", str(path)], capture_output=True,
                         text=True, check=True).stdout
    cli = json.loads(out)
    py = ptxemu.litmus(path)
    assert set(py) == set(cli)
    for k in cli:
        if k != "time_s":
            assert py[k] == cli[k], k


def test_explain():
    path = LIB / "MP+rlx.litmus"
    text = ptxemu.explain(path)
    assert "allowed" in text.lower()
    svg = ptxemu.explain(path, format="svg")
    assert svg.lstrip().startswith("<svg") or svg.lstrip().startswith("<?xml")
    with pytest.raises(ptxemu.LitmusError, match="no register"):
        ptxemu.explain(path, outcome="P1:r9=1")
    with pytest.raises(ptxemu.LitmusError, match="unknown model"):
        ptxemu.litmus(path, model="tso")


def test_notebook_pictures():
    # Jupyter calls _repr_svg_ / _repr_html_: the execution's picture, the page, the table.
    path = LIB / "MP+rel+acq-gpu.litmus"
    x = ptxemu.explain(path)
    assert isinstance(x, str) and "FORBIDDEN" in x
    svg = x._repr_svg_()
    assert svg.startswith("<svg") and 'class="edge cause cycle"' in svg
    page = x._repr_html_()
    assert "<svg" in page and "<table" in page
    assert ptxemu.explain(path, format="svg")._repr_svg_() == ptxemu.explain(path, format="svg")
    r = ptxemu.litmus(path)
    assert r["holds"] is False and isinstance(r, dict)
    h = r._repr_html_()
    assert "<svg" in h and "<table>" in h and "does not hold" in h


def test_a_condition_on_a_register_nothing_writes_warns():
    # MP+rlx's condition with r2 where it means r1: r2 is never written, so always 0.
    src = (LIB / "MP+rlx.litmus").read_text().replace("P1:r1 == 0", "P1:r2 == 0")
    with pytest.warns(UserWarning, match="no instruction of P1 writes r2"):
        r = ptxemu.litmus(src)
    assert len(r["warnings"]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "warnings" not in ptxemu.litmus(LIB / "MP+rlx.litmus")
