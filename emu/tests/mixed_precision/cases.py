"""Regenerate cases.txt: inputs and expected results of the sm_100 mixed-precision
`add/sub{.rnd}{.sat}.f32.{f16,bf16}` and `fma.rnd{.sat}.f32.{f16,bf16}` (PTX ISA "Mixed Precision
Floating-Point Instructions"), for emu/tests/mixed_precision.rs.

    python3 emu/tests/mixed_precision/cases.py

The reference is independent of ptxemu: numpy widens the 16-bit inputs to float32 (f16 through
numpy's float16, bf16 as the top half of a float32), the operation is computed exactly in
rationals (fractions.Fraction) and rounded once to float32 in the instruction's mode. Plain
round-to-nearest add/sub results are cross-checked against numpy's own float32 arithmetic, and
fma results against a float64 computation rounded once to float32 wherever float64 holds the
exact sum. NaN results are the canonical 0x7FFFFFFF of PTX's .f32 arithmetic; .sat clamps to
[0.0, 1.0] with NaN to +0.0.
"""

import math
import pathlib
from fractions import Fraction

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
N = 128  # cases per kind; the kernel runs one per thread
NAN32 = 0x7FFFFFFF
MAX32 = Fraction(2**128 - 2**104)


def widen(bits, kind):
    """The float32 value of 16-bit bits of kind f16/bf16 (exact)."""
    if kind == "f16":
        return np.array([bits], np.uint16).view(np.float16).astype(np.float32)[0]
    return np.array([bits << 16], np.uint32).view(np.float32)[0]


def f32(bits):
    return np.array([bits], np.uint32).view(np.float32)[0]


def bits32(x):
    return int(np.array([x], np.float32).view(np.uint32)[0])


def round_f32(q, rnd):
    """The float32 bits of the nonzero rational q rounded once in mode rnd (rn rz rm rp)."""
    neg = q < 0
    mag = -q if neg else q
    e = mag.numerator.bit_length() - mag.denominator.bit_length()
    if Fraction(2) ** e > mag:
        e -= 1
    quantum = Fraction(2) ** (max(e, -126) - 23)
    n, rem = divmod(mag, quantum)
    n = int(n)
    up = {
        "rn": rem > quantum / 2 or (rem == quantum / 2 and n % 2 == 1),
        "rz": False,
        "rm": neg and rem > 0,
        "rp": (not neg) and rem > 0,
    }[rnd]
    r = (n + up) * quantum
    if r > MAX32:
        to_inf = {"rn": True, "rz": False, "rm": neg, "rp": not neg}[rnd]
        r = None if to_inf else MAX32
    sign = 0x80000000 if neg else 0
    if r is None:
        return sign | 0x7F800000
    if r == 0:
        return sign
    x = np.float32(float(r))  # r is a float32 value: exact
    assert Fraction(float(x)) == r
    return sign | bits32(x)


def reference(op, a, b, c, rnd):
    """Bits of d for op in add/sub (a, c) or fma (a, b, c); a, b, c float32 values."""
    with np.errstate(all="ignore"):
        if op == "fma":
            special = np.float64(a) * np.float64(b) + np.float64(c)
        else:
            cc = c if op == "add" else -c
            special = np.float64(a) + np.float64(cc)
    vals = [a, c] + ([b] if op == "fma" else [])
    if any(math.isnan(v) for v in vals) or math.isnan(special):
        return NAN32
    if math.isinf(special):
        return bits32(np.float32(special))  # an infinite operand decides, in every mode
    if op == "fma":
        exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
        zero_signs = (math.copysign(1, a) * math.copysign(1, b) < 0, math.copysign(1, c) < 0)
    else:
        exact = Fraction(float(a)) + Fraction(float(cc))
        zero_signs = (math.copysign(1, a) < 0, math.copysign(1, cc) < 0)
    if exact == 0:
        # An exact zero: -0 when both terms are -0, or in .rm when the terms cancel.
        both_neg = zero_signs[0] and zero_signs[1]
        term_zero = (op != "fma" and a == 0) or (op == "fma" and (a == 0 or b == 0))
        if term_zero and c == 0:
            return 0x80000000 if both_neg or (rnd == "rm" and zero_signs[0] != zero_signs[1]) else 0
        return 0x80000000 if rnd == "rm" else 0
    return round_f32(exact, rnd)


def saturate(bits):
    x = f32(bits)
    if math.isnan(x) or x <= 0:
        return 0
    if x > 1:
        return bits32(np.float32(1.0))
    return bits


def half_edges(kind):
    if kind == "f16":
        return [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x3C01, 0x3BFF,
                0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x3800, 0x4000, 0xC200]
    return [0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x0080, 0x3F80, 0xBF80, 0x3F81, 0x3F7F,
            0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0x5F80, 0x3F00, 0xC040]


C_EDGES = [0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x00000001, 0x80000001, 0x30800000,
           0xB0800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x3F000000,
           0xCF000000, 0x33800000, 0xB3800000, 0x00800000]


def inputs(kind, rng):
    """N (a, b, c) bit triples: edge values crossed, then random values near each other."""
    he = half_edges(kind)
    out = []
    for i in range(N // 2):
        out.append((he[i % len(he)], he[(i * 7 + 3) % len(he)], C_EDGES[(i * 5 + i // len(he)) % len(C_EDGES)]))
    while len(out) < N:
        if kind == "f16":
            a = int(np.float16(rng.standard_normal() * 4).view(np.uint16))
            b = int(np.float16(rng.standard_normal() * 4).view(np.uint16))
        else:
            a = int(np.float32(rng.standard_normal() * 4).view(np.uint32)) >> 16
            b = int(np.float32(rng.standard_normal() * 4).view(np.uint32)) >> 16
        # c close to -a or -a*b, so the sum cancels and its low bits (and ties) matter
        base = float(widen(a, kind)) * (float(widen(b, kind)) if len(out) % 2 else 1.0)
        c = np.float32(-base * (1 + rng.standard_normal() * 2.0**-12) + rng.standard_normal() * 2.0**-20)
        out.append((a, b, bits32(c)))
    return out


def forms():
    for kind in ("f16", "bf16"):
        for op in ("add", "sub", "fma"):
            for rnd in ([None] if op != "fma" else []) + ["rn", "rz", "rm", "rp"]:
                for sat in (False, True):
                    name = op + (f".{rnd}" if rnd else "") + (".sat" if sat else "") + f".f32.{kind}"
                    yield kind, op, rnd or "rn", sat, name


def main():
    rng = np.random.default_rng(86)
    ins = {k: inputs(k, rng) for k in ("f16", "bf16")}
    lines = ["# Generated by cases.py (numpy + exact rationals); do not edit by hand.",
             "# in KIND A B C: the 16-bit a and b, the f32 c (hex bits), one line per thread",
             "# expect FORM D...: d of each thread, in input order"]
    for k in ("f16", "bf16"):
        lines += [f"in {k} {a:04x} {b:04x} {c:08x}" for a, b, c in ins[k]]
    for kind, op, rnd, sat, name in forms():
        ds = []
        for a, b, c in ins[kind]:
            av, bv, cv = widen(a, kind), widen(b, kind), f32(c)
            d = reference(op, av, bv, cv, rnd)
            if rnd == "rn" and op != "fma":  # numpy's float32 arithmetic agrees
                with np.errstate(all="ignore"):
                    n = av + cv if op == "add" else av - cv
                assert (math.isnan(n) and d == NAN32) or bits32(n) == d, (name, a, c)
            if op == "fma" and rnd == "rn" and all(map(math.isfinite, (av, bv, cv))):
                s = Fraction(float(av)) * Fraction(float(bv)) + Fraction(float(cv))
                with np.errstate(all="ignore"):
                    w = np.float64(av) * np.float64(bv) + np.float64(cv)
                if math.isfinite(w) and Fraction(float(w)) == s and s != 0:
                    assert bits32(np.float32(w)) == d, (name, a, b, c)
            ds.append(saturate(d) if sat else d)
        lines.append(f"expect {name} " + " ".join(f"{d:08x}" for d in ds))
    (HERE / "cases.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
