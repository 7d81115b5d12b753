"""Every ```python example of README.md and docs/**.md runs, as written, from the repository
root, with the package installed (issue 40). One test per block, named by file and line.

The rules are those of docs/development.md ("The guide's examples are tests"), which the
shell examples' test (tools/tests/docs_examples.rs) applies to ```sh blocks:
- a block preceded by `<!-- example: not run (reason) -->` is skipped, with the reason;
- a block that imports Triton or torch is skipped, visibly, where that package is missing;
- anything else runs in a fresh namespace and must not raise: each example checks its own
  result (an assert, or numpy.testing with its tolerance).
"""

import importlib.util
import pathlib
import re
import runpy

import pytest

from conftest import ROOT

NOT_RUN = re.compile(r"^\s*<!-- example: not run \((.+)\) -->")
# A backtick fence's info string has no backticks (CommonMark).
FENCE = re.compile(r"^ {0,3}(`{3,})([^`]*)$")
OPTIONAL = ("triton", "torch")


def markdown_files():
    files = [ROOT / "README.md"]
    files += sorted((ROOT / "docs").rglob("*.md"))
    return files


def python_blocks():
    """(file:line, code, reason not to run or None) for each ```python block."""
    out = []
    for path in markdown_files():
        rel = path.relative_to(ROOT).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        marker = None
        i = 0
        while i < len(lines):
            m = NOT_RUN.match(lines[i])
            if m:
                marker = m.group(1).strip()
                i += 1
                continue
            f = FENCE.match(lines[i])
            if not f:
                if lines[i].strip():
                    marker = None
                i += 1
                continue
            ticks, info = f.group(1), f.group(2).strip()
            j = i + 1
            while j < len(lines):
                c = FENCE.match(lines[j])
                if c and len(c.group(1)) >= len(ticks) and not c.group(2).strip():
                    break
                j += 1
            lang = info.split()[0] if info else ""
            if lang == "python":
                out.append((f"{rel}:{i + 1}", "\n".join(lines[i + 1:j]) + "\n", marker))
            marker = None
            i = j + 1
    return out


BLOCKS = python_blocks()


def test_the_guide_has_python_examples():
    # docs/python.md alone has several; none found means the parser broke.
    assert len([b for b in BLOCKS if b[2] is None]) >= 4, BLOCKS


@pytest.mark.parametrize("where,code,not_run", BLOCKS, ids=[b[0] for b in BLOCKS])
def test_example(where, code, not_run, monkeypatch, tmp_path):
    if not_run is not None:
        pytest.skip(f"{where}: not run ({not_run})")
    for mod in OPTIONAL:
        # `import numpy as np, triton` names it too, not only `import triton` / `from triton`.
        if re.search(rf"^\s*(from\s+{mod}\b|import\s.*\b{mod}\b)", code, re.M) and \
                importlib.util.find_spec(mod) is None:
            pytest.skip(f"{where}: needs {mod} (`pip install {mod}`)")
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton-cache"))
    # Run from a file: Triton's @triton.jit reads its function's source (inspect), which code
    # compiled from a string does not have.
    script = tmp_path / "docs_example.py"
    script.write_text(f"# {where}\n{code}", encoding="utf-8")
    runpy.run_path(str(script), run_name="__docs_example__")
