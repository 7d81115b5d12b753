"""The exceptions ptxemu raises (the Rust bindings raise them by name)."""


def _printable(text):
    """`text` with control characters but newline and tab escaped (as ``\\x1b``), so that a
    message echoing input cannot drive the terminal it is printed on."""
    if not any(c < " " and c not in "\n\t" or c == "\x7f" for c in text):
        return text
    return "".join(c if (c >= " " and c != "\x7f") or c in "\n\t" else repr(c)[1:-1]
                   for c in text)


class Error(Exception):
    """Base class of ptxemu's errors. Their messages show control characters escaped."""

    def __str__(self):
        return _printable(super().__str__())


class DeviceMemoryError(Error, MemoryError):
    """Device memory past the device's `memory_limit`, or that the host refused (an
    address-space cap, the machine's memory): the message names the size and the limit."""


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
    detail: the kind's text; kernel (as the PTX declares it: mangled for C++ kernels);
    kernel_demangled (its C++ name; the kernel itself when not mangled); cta (x, y, z); warp; lane (or None); thread (x, y, z, or
    None); file and line (the PTX's); instruction; address (an int, or None); message (all of
    it, as the CLI prints it); stats: the launch's LaunchStats.

    When the PTX carries ``.loc`` (Triton always; nvcc with ``-lineinfo``), the program's own
    source line: source_file, source_line, source_column (None when not given), and
    source_inlined_at, the call sites the line was inlined at, innermost first, as
    ``(file, line, column)`` tuples (empty when it was not inlined). Without ``.loc`` these are
    None (and ``()``).
    """

    FIELDS = ("kind", "detail", "kernel", "kernel_demangled", "cta", "warp", "lane", "thread", "file", "line",
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
    """One race in a line: both accesses (the argument whose buffer it touched, by its PTX
    parameter name and index, PTX line, source line when given, instruction, thread) and how
    many access pairs raced."""
    def side(a):
        src = a.get("source")
        at = f" ({src['file']}:{src['line']})" if src else ""
        t, c = tuple(a["thread"]), tuple(a["cta"])
        arg = a.get("argument")
        on = ""
        if arg:
            name = f"`{arg['name']}`, " if arg.get("name") else ""
            on = f" of {name}arg {arg['index']}, byte {arg['offset']},"
        return (f"{a['kind']}{on} at line {a['line']}{at} "
                f"`{' '.join(a['instruction'].split())}` by thread {t} of CTA {c}")
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
    ``reason``, ``count``, ``fence_sc_dependent``); kernel (mangled, as the PTX declares it);
    kernel_demangled (its C++ name, which the message shows); stats: the launch's LaunchStats.
    ``explain_races(e.races)`` explains them.
    """

    def __init__(self, kernel, races, stats=None, demangled=None):
        super().__init__(_races_message(demangled or kernel, races))
        self.kernel = kernel
        self.kernel_demangled = demangled or kernel
        self.races = races
        self.stats = stats


class RaceWarning(UserWarning):
    """Issued by a launch with ``race="warn"`` that found data races (``races`` as in
    RaceError)."""

    def __init__(self, kernel, races, demangled=None):
        super().__init__(_races_message(demangled or kernel, races))
        self.kernel = kernel
        self.kernel_demangled = demangled or kernel
        self.races = races
