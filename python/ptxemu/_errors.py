"""The exceptions ptxemu raises (the Rust bindings raise them by name)."""


class Error(Exception):
    """Base class of ptxemu's errors."""


class PtxError(Error):
    """The PTX text could not be read: a parse or validation error, or a module that cannot load.

    `kind` is ``parse``, ``validation`` or ``load``; `message` the rendered diagnostics.
    """

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind
        self.message = message


class LaunchError(Error):
    """A launch was refused before it ran (arguments, launch limits, an unsupported construct).

    `kind` is the ``error.kind`` of ``ptxemu run --json``.
    """

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind
        self.message = message


class TensorMapError(Error, ValueError):
    """A tensor map's parameters break a requirement of cuTensorMapEncodeTiled/Im2col (the
    message names the parameter), or ptxemu does not model the layout."""


class VariableError(Error):
    """A module variable the host cannot reach, or more bytes than it holds."""


class LitmusError(Error):
    """A litmus test that could not be read or run."""


class Fault(Error):
    """The kernel faulted. The fields are those of a fault in ``ptxemu run --json``.

    kind: short name (out_of_bounds, misaligned, barrier_deadlock, divergent_collective,
    step_budget_exhausted, trap, breakpoint, assert_failed, undefined, unsupported);
    detail: the kind's text; kernel; cta (x, y, z); warp; lane (or None); thread (x, y, z, or
    None); file and line (the PTX's); instruction; address (an int, or None); message (all of
    it, as the CLI prints it); stats: the launch's LaunchStats.

    When the PTX carries ``.loc`` (Triton always; nvcc with ``-lineinfo``), the program's own
    source line: source_file, source_line, source_column (None when not given), and
    source_inlined_at, the call sites the line was inlined at, innermost first, as
    ``(file, line, column)`` tuples (empty when it was not inlined). Without ``.loc`` these are
    None (and ``()``).
    """

    FIELDS = ("kind", "detail", "kernel", "cta", "warp", "lane", "thread", "file", "line",
              "instruction", "address", "message", "source_file", "source_line",
              "source_column", "source_inlined_at")

    def __init__(self, fields, stats=None):
        super().__init__(fields["message"])
        for k in self.FIELDS:
            setattr(self, k, fields.get(k))
        src = fields.get("source")
        self.source_file = src["file"] if src else None
        self.source_line = src["line"] if src else None
        self.source_column = src["column"] if src else None
        self.source_inlined_at = tuple(tuple(c) for c in src["inlined_at"]) if src else ()
        if self.cta is not None:
            self.cta = tuple(self.cta)
        if self.thread is not None:
            self.thread = tuple(self.thread)
        self.stats = stats

    def as_dict(self):
        """The fields as a dict (address as ``0x…`` text, as the CLI's JSON gives it)."""
        d = {k: getattr(self, k) for k in self.FIELDS}
        if d["address"] is not None:
            d["address"] = f"0x{d['address']:x}"
        return d


class RaceReportError(Error):
    """A race report that could not be read (`explain_races`): the JSON's syntax, or the path
    of the first value that does not fit a report."""


def _race_line(r):
    """One race in a line: both accesses (PTX line, source line when given, instruction,
    thread) and how many access pairs raced."""
    def side(a):
        src = a.get("source")
        at = f" ({src['file']}:{src['line']})" if src else ""
        t, c = tuple(a["thread"]), tuple(a["cta"])
        return (f"{a['kind']} at line {a['line']}{at} `{' '.join(a['instruction'].split())}` "
                f"by thread {t} of CTA {c}")
    n = r.get("count", 1)
    return f"{side(r['first'])} and {side(r['second'])} ({n} racing access pair{'s' * (n != 1)})"


def _races_message(kernel, races):
    pairs = sum(r.get("count", 1) for r in races)
    head = (f"{len(races)} data race{'s' * (len(races) != 1)} in kernel {kernel} "
            f"({pairs} racing access pair{'s' * (pairs != 1)})")
    lines = [head] + [f"  {_race_line(r)}" for r in races[:10]]
    if len(races) > 10:
        lines.append(f"  ... and {len(races) - 10} more (the exception's `races` lists all)")
    return "\n".join(lines)


class RaceError(Error):
    """A launch with ``race=True`` found data races (the launch ran to its end and the arrays
    were copied back, so the wrong results can be inspected).

    races: the races, as ``ptxemu run --race --json`` gives them (``first``, ``second``,
    ``reason``, ``count``, ``fence_sc_dependent``); kernel; stats: the launch's LaunchStats.
    ``explain_races(e.races)`` explains them.
    """

    def __init__(self, kernel, races, stats=None):
        super().__init__(_races_message(kernel, races))
        self.kernel = kernel
        self.races = races
        self.stats = stats


class RaceWarning(UserWarning):
    """Issued by a launch with ``race="warn"`` that found data races (``races`` as in
    RaceError)."""

    def __init__(self, kernel, races):
        super().__init__(_races_message(kernel, races))
        self.kernel = kernel
        self.races = races
