"""Litmus tests from Python."""

import html
import json
import os
import warnings

from . import _native


def _source(test):
    if isinstance(test, os.PathLike) or (isinstance(test, str) and "\n" not in test):
        # Size checked before reading (128 MiB, as the command line): /dev/zero is refused.
        return _native.read_text(os.fspath(test)), os.fspath(test)
    return test, "<string>"


class LitmusResult(dict):
    """What `litmus` returns: the dict ``ptxemu litmus --json`` prints, which Jupyter shows
    as the outcomes table and the picture of the condition's execution (``_repr_html_``)."""

    def __init__(self, fields, src, name, model):
        super().__init__(fields)
        self._src, self._name, self._model = src, name, model

    def _repr_html_(self):
        esc = html.escape
        states = [st for st in self.get("states", []) if isinstance(st, dict)]
        names = list(states[0]) if states else []
        head = "".join(f"<th>{esc({'_count': 'executions', '_satisfies': 'satisfies'}.get(k, k))}</th>"
                       for k in names)
        rows = "".join("<tr>" + "".join(f"<td>{esc(str(st.get(k)))}</td>" for k in names) + "</tr>"
                       for st in states)
        rows = f"<tr>{head}</tr>{rows}"
        verdict = f"{esc(str(self.get('quantifier', '')))} {esc(str(self.get('condition', '')))}: " + (
            "holds" if self.get("holds") else "does not hold")
        try:
            picture = _native.explain(self._src, self._name, self._model, None, "svg")
        except Exception as e:  # nothing to draw (no candidate produces the condition)
            picture = f"<p>{esc(str(e))}</p>"
        return (f"<div class=\"ptxemu-litmus\"><p><b>{esc(str(self.get('test', self._name)))}</b> under "
                f"{esc(self._model)}: {verdict}</p>{picture}<table>{rows}</table></div>")


class Explanation(str):
    """What `explain` returns: the text (or SVG, DOT, HTML) ``ptxemu explain`` writes, which
    Jupyter shows as the execution's picture (``_repr_svg_``) or the whole page
    (``_repr_html_``)."""

    def __new__(cls, text, src, name, model, outcome, format):
        self = super().__new__(cls, text)
        self._args = (src, name, model, outcome)
        self._format = format
        return self

    def _repr_svg_(self):
        if self._format == "svg":
            return str(self)
        try:
            return _native.explain(*self._args, "svg")
        except Exception:  # nothing to draw: the HTML view says why
            return None

    def _repr_html_(self):
        if self._format == "html":
            return str(self)
        return _native.explain(*self._args, "html")


def litmus(test, model="ptx-v7.5"):
    """Every outcome `model` (ptx-v7.5, ptx-v6.0 or sc) allows for a litmus test (its text or
    a path): the object ``ptxemu litmus --json`` prints, as a dict (a `LitmusResult`, which
    Jupyter draws). A condition that reads a register no instruction of its thread writes is
    warned about (``warnings.warn``, and the dict's ``warnings``), as the command line does."""
    src, name = _source(test)
    r = LitmusResult(json.loads(_native.litmus_json(src, name, model)), src, name, model)
    for w in r.get("warnings", []):
        warnings.warn(w, stacklevel=2)
    return r


def explain(test, model="ptx-v7.5", outcome=None, format="text"):
    """Why an outcome of a litmus test (default: its condition) is allowed or forbidden, as
    ``ptxemu explain`` gives it: format ``text``, ``svg``, ``dot`` or ``html`` (a string, an
    `Explanation`, which Jupyter draws)."""
    src, name = _source(test)
    return Explanation(_native.explain(src, name, model, outcome, format), src, name, model, outcome,
                       format)


def explain_races(report, format="text"):
    """Why each race of a race report is one, as ``ptxemu explain --race-report`` gives it
    (format ``text``, ``svg``, ``dot`` or ``html``). `report`: the races (``stats.races`` or
    ``RaceError.races``), a dict with ``races`` (a ``ptxemu run --race --json`` object), or
    that JSON as text. Raises RaceReportError when it is not a race report."""
    if not isinstance(report, str):
        if isinstance(report, (list, tuple)):
            report = {"races": list(report)}
        report = json.dumps(report)
    return _native.explain_race_report(report, format)
