"""Writes docs/python-api.md, the Python package's API reference, from its docstrings.

    python python/scripts/api_docs.py            # from the repository root, package installed

python/tests/test_api_docs.py fails when the committed page differs from what this renders,
so a changed docstring or signature is one command away from the guide.
"""

import dataclasses
import inspect
import pathlib
import re
import sys

PAGE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python-api.md"

HEADER = """# The Python API reference

This page lists every public name of the `ptxemu` Python package with its signature and
docstring; the guide to using them is [python.md](python.md). It is generated from the
package by `python python/scripts/api_docs.py` (do not edit it by hand: a test of
`python/tests` fails when it is out of date).
"""


def _signature(obj, drop_self=False):
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return "(...)"
    params = list(sig.parameters.values())
    if drop_self and params and params[0].name in ("self", "cls"):
        params = params[1:]
    text = str(sig.replace(parameters=params))
    # Types as defaults print as <class 'numpy.float32'>: show them as written in code.
    return re.sub(r"<class '([\w.]+)'>", r"\1", text)


def _doc(obj):
    # The object's own docstring: an undocumented method must not show its base's.
    own = obj.fget.__doc__ if isinstance(obj, property) else getattr(obj, "__doc__", None)
    d = inspect.cleandoc(own) if own else None
    return d.strip() if d else "*(no docstring)*"


def _as_markdown(doc):
    """A docstring as Markdown: an indented example becomes a ```python block (which the docs
    test runs, from the repository root), the rest is text."""
    out, code = [], False
    for line in doc.splitlines():
        indented = line.startswith("    ")
        if indented and not code:
            if out and out[-1] != "":
                out.append("")
            out.append("```python")
            code = True
        elif code and not indented and line.strip():
            while out and out[-1] == "":
                out.pop()
            out.append("```")
            out.append("")
            code = False
        out.append(line[4:] if code else line)
    while code and out and out[-1] == "":
        out.pop()
    if code:
        out.append("```")
    return "\n".join(out).strip()


def _members(cls):
    """Public methods and properties defined on `cls` itself, in source order."""
    items = []
    for name, value in vars(cls).items():
        if name.startswith("_") and name != "__call__":
            continue
        if isinstance(value, property) or inspect.isfunction(value):
            items.append((name, value))
    return items


def _class(name, cls, qual):
    if dataclasses.is_dataclass(cls):
        lines = [f"### `class {qual}` (a dataclass)", "", _as_markdown(_doc(cls)), ""]
        lines.append("| field | type | default |")
        lines.append("|---|---|---|")
        for f in dataclasses.fields(cls):
            t = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
            if f.default is not dataclasses.MISSING:
                default = repr(f.default)
            elif f.default_factory is not dataclasses.MISSING:
                default = repr(f.default_factory())
            else:
                default = "(required)"
            lines.append(f"| `{f.name}` | `{t}` | `{default}` |")
        lines.append("")
        return lines
    base = [b.__name__ for b in cls.__bases__ if b is not object]
    init = vars(cls).get("__init__")
    sig = _signature(init, drop_self=True) if init else ""
    lines = [f"### `class {qual}{sig if sig != '()' else ''}`", ""]
    if base:
        lines += [f"A subclass of `{', '.join(base)}`.", ""]
    lines += [_as_markdown(_doc(cls)), ""]
    for mname, m in _members(cls):
        if isinstance(m, property):
            lines += [f"#### `{name}.{mname}` (property)", "", _as_markdown(_doc(m)), ""]
        else:
            shown = f"{name}(...)" if mname == "__call__" else f"{name}.{mname}"
            lines += [f"#### `{shown}{_signature(m, drop_self=True)}`", "",
                      _as_markdown(_doc(m)), ""]
    return lines


def _function(qual, f):
    return [f"### `{qual}{_signature(f)}`", "", _as_markdown(_doc(f)), ""]


def render():
    import ptxemu
    import ptxemu.triton

    out = [HEADER, "## `ptxemu`", "", _as_markdown(_doc(ptxemu)), ""]
    for name in ptxemu.__all__:
        obj = getattr(ptxemu, name)
        if inspect.isclass(obj):
            out += _class(name, obj, f"ptxemu.{name}")
        else:
            out += _function(f"ptxemu.{name}", obj)
    out += ["## `ptxemu.triton`", "", _as_markdown(_doc(ptxemu.triton)), ""]
    public = getattr(ptxemu.triton, "__all__", None) or [
        n for n, v in vars(ptxemu.triton).items()
        if not n.startswith("_") and inspect.isfunction(v) and v.__module__ == "ptxemu.triton"]
    for name in public:
        obj = getattr(ptxemu.triton, name)
        if inspect.isclass(obj):
            out += _class(name, obj, f"ptxemu.triton.{name}")
        else:
            out += _function(f"ptxemu.triton.{name}", obj)
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).rstrip() + "\n"


if __name__ == "__main__":
    PAGE.write_text(render(), encoding="utf-8")
    print(f"wrote {PAGE}", file=sys.stderr)
