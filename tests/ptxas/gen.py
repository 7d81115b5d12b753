#!/usr/bin/env python3
"""Generates one-instruction cases of ld, ld.global.nc and st, asks NVIDIA's ptxas which it
accepts at several targets, and records the verdicts in ldst.tsv.

Usage: gen.py PTXAS [MESSAGES]
  PTXAS: path to ptxas from the PyPI package nvidia-cuda-nvcc 13.x
  MESSAGES: where to write ptxas's first message for every rejected case (not committed)

Each case is one instruction line placed in the kernel of kernel.ptx (the same template the
Rust test `tests/tests/ptxas_agreement.rs` uses). Cases are batched many per file; ptxas names
the line of every error, so each rejected case is attributed by its line, and every batch of
cases it accepted is assembled again on its own to confirm that no later compiler phase
rejects them.
"""

import itertools
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TARGETS = [("sm_75", "7.0"), ("sm_80", "7.4"), ("sm_90", "8.7"), ("sm_100a", "8.8"), ("sm_100a", "9.1")]

REG = {8: "%r", 16: "%r", 32: "%r", 64: "%rd", 128: "%q"}
FREG = {32: "%f", 64: "%fd"}


def width(ty):
    return int(re.sub(r"\D", "", ty))


def reg_for(ty):
    return FREG[width(ty)] if ty.startswith("f") else REG[width(ty)]


def data(ty, vec, sink=False, reg=None):
    base = reg or reg_for(ty)
    if vec is None:
        return f"{base}2"
    n = int(vec[1:])
    regs = [f"{base}{10 + i}" for i in range(n)]
    if sink:
        regs[1] = "_"
    return "{" + ", ".join(regs) + "}"


def instr(op, quals, ty, vec=None, sink=False, hint=False, reg=None, pred=False):
    q = "".join("." + x for x in quals if x)
    v = f".{vec}" if vec else ""
    d = data(ty, vec, sink, reg)
    addr = "[%rd1]"
    args = f"{d}, {addr}" if op == "ld" else f"{addr}, {d}"
    if hint:
        args += ", %rd3"
    p = "@%p1 " if pred else ""
    return f"{p}{op}{q}{v}.{ty} {args};"


LD_SEMS = [None, "weak", "volatile", "relaxed.gpu", "relaxed.cluster", "acquire.sys", "acquire.cta", "mmio.relaxed.sys", "mmio.relaxed.gpu", "relaxed"]
ST_SEMS = [None, "weak", "volatile", "relaxed.sys", "relaxed.cluster", "release.gpu", "release.cta", "mmio.relaxed.sys", "mmio.relaxed.gpu", "release"]
SPACES = [None, "global", "shared", "shared::cta", "shared::cluster", "local", "param", "param::entry", "param::func", "const"]
LD_COPS = [None, "ca", "cg", "cs", "lu", "cv", "wb"]
ST_COPS = [None, "wb", "cg", "cs", "wt", "ca"]
TYPES = ["u8", "s16", "b32", "f32", "u64", "f64", "b128"]
L1 = [None, "L1::evict_last", "L1::no_allocate", "L1::evict_unchanged"]
L2 = [None, "L2::evict_first", "L2::evict_normal"]
PREFETCH = [None, "L2::64B", "L2::256B"]
VEC_TYPES = [(None, "b32"), ("v2", "u16"), ("v2", "f64"), ("v4", "b32"), ("v4", "b64"), ("v4", "f64"), ("v8", "f32"), ("v8", "b32"), ("v8", "u16"), ("v2", "b128"), ("v4", "b128")]


def cases():
    out = []
    add = out.append
    for op, sems, cops in (("ld", LD_SEMS, LD_COPS), ("st", ST_SEMS, ST_COPS)):
        # Semantics x space x cache operator x type.
        for sem, ss, cop, ty in itertools.product(sems, SPACES, cops, TYPES):
            add(instr(op, [sem, ss, cop], ty))
        # Vectors and sinks across spaces and semantics.
        for (vec, ty), ss, sem, sink in itertools.product(VEC_TYPES, [None, "global", "shared", "local", "param"], [None, "relaxed.gpu", "volatile"], [False, True]):
            if vec is None and sink:
                continue
            add(instr(op, [sem, ss], ty, vec, sink))
        # Eviction priorities, cache hints (with and without the policy operand), vectors.
        for l1, l2, hint, policy, ss, sem, (vec, ty) in itertools.product(L1, L2, [False, True], [False, True], [None, "global", "shared"], [None, "relaxed.gpu", "weak"], [(None, "b32"), ("v8", "f32"), ("v4", "b64"), ("v4", "b32")]):
            quals = [sem, ss, l1, l2, "L2::cache_hint" if hint else None]
            add(instr(op, quals, ty, vec, hint=policy))
        # Register widths: narrower, wider and other-kind registers.
        for ty, reg in itertools.product(["u8", "s16", "u32", "s32", "f32", "b64", "f64", "b128"], ["%h", "%r", "%rd", "%f", "%fd", "%q"]):
            add(instr(op, ["global"], ty, reg=reg))
        # Predicated forms.
        for ss in ["global", "param", "param::func", "shared"]:
            add(instr(op, [ss], "b32", pred=True))
        # Qualifier order: space before semantics, cache operator before space.
        add(instr(op, ["global", "relaxed.gpu"], "b32"))
        add(instr(op, ["cg", "global"], "b32"))
        add(instr(op, ["gpu", "relaxed", "global"], "b32"))
    # ld.global.nc: cache operators (before and after .nc), hints, prefetch, vectors, types.
    for cop, after, l1, l2, pf, hint, (vec, ty) in itertools.product([None, "ca", "cg", "cs", "cv", "lu"], [False, True], L1, L2, PREFETCH, [False, True], [(None, "b32"), (None, "u8"), (None, "f64"), (None, "b128"), ("v2", "f64"), ("v4", "f32"), ("v8", "f32"), ("v4", "b64")]):
        if cop is None and after:
            continue
        quals = ["global", cop, "nc"] if not after else ["global", "nc", cop]
        quals += [l1, l2, "L2::cache_hint" if hint else None, pf]
        add(instr("ld", quals, ty, vec, hint=hint))
    for ss in [None, "shared", "local", "const"]:
        add(instr("ld", [ss, "nc"], "b32"))
    for sem in ["weak", "volatile", "relaxed.gpu", "acquire.gpu"]:
        add(instr("ld", [sem, "global", "nc"], "b32"))
    add(instr("ld", ["global", "nc"], "f32", "v8", sink=True))
    add(instr("ld", ["global", "nc"], "b64", "v4", sink=True))
    # Prefetch sizes on ordinary loads.
    for pf, ss, sem in itertools.product(PREFETCH[1:], [None, "global", "shared"], [None, "relaxed.gpu", "volatile"]):
        add(instr("ld", [sem, ss, pf], "b32"))
    seen = set()
    return [c for c in out if not (c in seen or seen.add(c))]


def template():
    with open(os.path.join(HERE, "kernel.ptx")) as f:
        return f.read()


def assemble(ptxas, target, version, lines):
    """Returns the set of indices of `lines` that ptxas rejects, and its messages."""
    t = template()
    head, body = t.split("{body}")
    head = head.replace("{version}", version).replace("{target}", target)
    # .b128 registers exist from PTX ISA 8.3 on.
    b128 = ".reg .b128 %q<30>;" if tuple(map(int, version.split("."))) >= (8, 3) else ""
    head = head.replace("{b128regs}", b128)
    first = head.count("\n") + 1
    src = head + "\n".join(lines) + body
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(src)
        path = f.name
    r = subprocess.run([ptxas, f"-arch={target}", path, "-o", os.devnull], capture_output=True, text=True)
    os.unlink(path)
    bad = {}
    other = []
    for line in (r.stdout + r.stderr).splitlines():
        m = re.search(r", line (\d+); error\s*:\s*(.*)", line)
        if m:
            k = int(m.group(1)) - first
            if 0 <= k < len(lines):
                bad.setdefault(k, m.group(2).strip())
            else:
                other.append(line)
        elif "error" in line and "aborted" not in line:
            other.append(line)
    if r.returncode != 0 and not bad:
        # ptxas failed without naming a line (it crashes on some inputs): split the batch
        # until the case that makes it fail is alone.
        if len(lines) == 1:
            return {0: f"{CRASH} {r.returncode} and no message"}
        half = len(lines) // 2
        bad = assemble(ptxas, target, version, lines[:half])
        for k, m in assemble(ptxas, target, version, lines[half:]).items():
            bad[half + k] = m
        return bad
    if other:
        raise SystemExit("ptxas errors outside the cases:\n" + "\n".join(other))
    return bad


def verdicts(ptxas, target, version, cs):
    bad = {}
    for start in range(0, len(cs), 2000):
        chunk = cs[start:start + 2000]
        for k, m in assemble(ptxas, target, version, chunk).items():
            bad[start + k] = m
    # Confirm the accepted ones on their own (a later phase could reject some).
    while True:
        ok = [i for i in range(len(cs)) if i not in bad]
        more = {}
        for start in range(0, len(ok), 2000):
            chunk = ok[start:start + 2000]
            for k, m in assemble(ptxas, target, version, [cs[i] for i in chunk]).items():
                more[chunk[k]] = m
        if not more:
            return bad
        bad.update(more)


CRASH = "ptxas exits with status"


def letter(i, rejected):
    """A: accepted; R: rejected with a message; C: ptxas crashed on it (no message)."""
    if i not in rejected:
        return "A"
    return "C" if rejected[i].startswith(CRASH) else "R"


def main():
    ptxas = sys.argv[1]
    cs = cases()
    results = []
    for target, version in TARGETS:
        results.append(verdicts(ptxas, target, version, cs))
        print(f"{target}/{version}: {len(cs) - len(results[-1])} of {len(cs)} accepted", file=sys.stderr)
    ver = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    with open(os.path.join(HERE, "ldst.tsv"), "w") as f:
        f.write(f"# ptxas per target: A accepts, R rejects, C crashes; generated by gen.py with {ver}\n")
        f.write("# targets\t" + "\t".join(f"{t}/{v}" for t, v in TARGETS) + "\n")
        for i, c in enumerate(cs):
            f.write(c + "\t" + "".join(letter(i, r) for r in results) + "\n")
    if len(sys.argv) < 3:
        return
    with open(sys.argv[2], "w") as f:
        f.write("# the first ptxas message for each rejected case, per target\n")
        for i, c in enumerate(cs):
            for (t, v), r in zip(TARGETS, results):
                if i in r:
                    f.write(f"{t}/{v}\t{c}\t{r[i]}\n")


if __name__ == "__main__":
    main()
