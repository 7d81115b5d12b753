"""Litmus tests from Python."""

import json
import os
import warnings

from . import _native


def _source(test):
    if isinstance(test, os.PathLike) or (isinstance(test, str) and "\n" not in test):
        with open(test, encoding="utf-8") as f:
            return f.read(), os.fspath(test)
    return test, "<string>"


def litmus(test, model="ptx-v7.5"):
    """Every outcome `model` (ptx-v7.5, ptx-v6.0 or sc) allows for a litmus test (its text or
    a path): the object ``ptxemu litmus --json`` prints, as a dict. A condition that reads a
    register no instruction of its thread writes is warned about (``warnings.warn``, and the
    dict's ``warnings``), as the command line does."""
    src, name = _source(test)
    r = json.loads(_native.litmus_json(src, name, model))
    for w in r.get("warnings", []):
        warnings.warn(w, stacklevel=2)
    return r


def explain(test, model="ptx-v7.5", outcome=None, format="text"):
    """Why an outcome of a litmus test (default: its condition) is allowed or forbidden, as
    ``ptxemu explain`` gives it: format ``text``, ``svg``, ``dot`` or ``html``."""
    src, name = _source(test)
    return _native.explain(src, name, model, outcome, format)
