"""docs/python-api.md is what python/scripts/api_docs.py renders from the installed package's
docstrings: a docstring or signature changed without regenerating the page fails here."""

import importlib.util

from conftest import ROOT


def _render():
    spec = importlib.util.spec_from_file_location("api_docs", ROOT / "python/scripts/api_docs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.render()


def test_python_api_page_is_up_to_date():
    committed = (ROOT / "docs/python-api.md").read_text(encoding="utf-8")
    assert committed == _render(), (
        "docs/python-api.md is out of date: run `python python/scripts/api_docs.py` "
        "from the repository root with the package installed")


def test_every_public_name_has_a_docstring():
    assert "*(no docstring)*" not in _render()
