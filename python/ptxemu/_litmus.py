"""Litmus tests from Python."""

import json
import os

from . import _native


def _source(test):
    if isinstance(test, os.PathLike) or (isinstance(test, str) and "\n" not in test):
        # Size checked before reading (128 MiB, as the command line): /dev/zero is refused.
        return _native.read_text(os.fspath(test)), os.fspath(test)
    return test, "<string>"


def litmus(test, model="ptx-v7.5"):
    """Every outcome `model` (ptx-v7.5, ptx-v6.0 or sc) allows for a litmus test (its text or
    a path): the object ``ptxemu litmus --json`` prints, as a dict."""
    src, name = _source(test)
    return json.loads(_native.litmus_json(src, name, model))


def explain(test, model="ptx-v7.5", outcome=None, format="text"):
    """Why an outcome of a litmus test (default: its condition) is allowed or forbidden, as
    ``ptxemu explain`` gives it: format ``text``, ``svg``, ``dot`` or ``html``."""
    src, name = _source(test)
    return _native.explain(src, name, model, outcome, format)
