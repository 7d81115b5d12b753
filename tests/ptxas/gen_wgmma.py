#!/usr/bin/env python3
"""Generates one-instruction cases of the warpgroup-level matrix instructions (wgmma.mma_async,
wgmma.fence, wgmma.commit_group, wgmma.wait_group), asks NVIDIA's ptxas which it accepts at
several targets, and records the verdicts in wgmma.tsv.

Usage: gen_wgmma.py PTXAS [MESSAGES]
  PTXAS: path to ptxas from the PyPI package nvidia-cuda-nvcc 13.x
  MESSAGES: where to write ptxas's first message for every rejected case (not committed)

Each case is one instruction line placed alone in the kernel of wgmma_kernel.ptx (%rd1/%rd2
hold descriptors, %p1 a predicate) and assembled by itself. Not covered: wgmma.mma_async.sp,
which ptxemu refuses as unsupported.
"""

import os

import one_line_cases

HERE = os.path.dirname(os.path.abspath(__file__))

# (.target, .version, -arch)
TARGETS = [
    ("sm_90a", "8.0", "sm_90a"),
    ("sm_90a", "8.7", "sm_90a"),
    ("sm_90", "8.7", "sm_90"),
    ("sm_100a", "8.8", "sm_100a"),
]

BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "s8": 8, "u8": 8, "s4": 4, "b1": 1,
        "e4m3": 8, "e5m2": 8, "s32": 32}

# (dtype, atype, btype, extra qualifiers after the types)
TYPES = [
    ("f32", "f16", "f16", ""), ("f16", "f16", "f16", ""), ("f32", "bf16", "bf16", ""),
    ("f16", "bf16", "bf16", ""), ("f32", "tf32", "tf32", ""), ("f16", "tf32", "tf32", ""),
    ("f32", "e4m3", "e4m3", ""), ("f16", "e5m2", "e4m3", ""), ("f32", "e4m3", "e5m2", ""),
    ("f16", "e5m2", "e5m2", ""), ("s32", "s8", "s8", ""), ("s32", "u8", "s8", ""),
    ("s32", "s8", "u8", ""), ("s32", "u8", "u8", ""), ("s32", "s8", "s8", ".satfinite"),
    ("s32", "u8", "u8", ".satfinite"), ("f32", "s8", "s8", ""), ("s32", "b1", "b1", ".and.popc"),
    ("s32", "b1", "b1", ""), ("s32", "b1", "b1", ".xor.popc"), ("f32", "f32", "f32", ""),
    ("s32", "s4", "s4", ""), ("f32", "f16", "bf16", ""), ("f32", "f16", "f16", ".satfinite"),
]

NS = list(range(8, 257, 8)) + [4, 12, 264]
# Every N for one form of each input family; a sample for the rest.
FULL = {("f32", "f16", "f16", ""), ("f32", "bf16", "bf16", ""), ("f32", "tf32", "tf32", ""),
        ("f32", "e4m3", "e4m3", ""), ("s32", "s8", "s8", ""), ("s32", "b1", "b1", ".and.popc")}
SAMPLE = [8, 24, 40, 64, 136, 256, 12]


def k_of(a):
    return 256 // BITS[a]


def vec(n, kind, start):
    return "{" + ",".join(f"%{kind}{start + i}" for i in range(n)) + "}"


def d_regs(n, d):
    return n // 4 if d == "f16" else n // 2


def line(n, k, d, a, b, extra, areg, imms, dkind=None, nd=None, na=4):
    dk = dkind or ("f" if d == "f32" else "r")
    dv = vec(nd if nd is not None else d_regs(n, d), dk, 1)
    av = vec(na, "r", 200) if areg else "%rd1"
    ops = ", ".join([dv, av, "%rd2", *imms])
    return f"wgmma.mma_async.sync.aligned.m64n{n}k{k}.{d}.{a}.{b}{extra} {ops};"


def std_imms(a, areg):
    if a in ("f16", "bf16"):
        return ["%p1", "1", "1", "1"] if areg else ["%p1", "1", "1", "0", "1"]
    if a in ("tf32", "e4m3", "e5m2", "f32"):
        return ["%p1", "1", "1"]
    return ["%p1"]


def cases():
    out = []
    for d, a, b, extra in TYPES:
        k = k_of(a) if a in BITS else 16
        for n in NS if (d, a, b, extra) in FULL else SAMPLE:
            for areg in (False, True):
                out.append(line(n, k, d, a, b, extra, areg, std_imms(a, areg)))
        # wrong K, register kinds and counts
        out.append(line(64, k * 2, d, a, b, extra, False, std_imms(a, False)))
        out.append(line(64, k, d, a, b, extra, False, std_imms(a, False), nd=d_regs(64, d) + 1))
        out.append(line(64, k, d, a, b, extra, True, std_imms(a, True), na=3))
        out.append(line(64, k, d, a, b, extra, False, std_imms(a, False),
                        dkind="r" if d == "f32" else "f"))
        # operand lists: one fewer, one more
        imms = std_imms(a, False)
        out.append(line(64, k, d, a, b, extra, False, imms[:-1]))
        out.append(line(64, k, d, a, b, extra, False, imms + ["1"]))
        imms = std_imms(a, True)
        out.append(line(64, k, d, a, b, extra, True, imms + ["1"]))
    # immediates and scale-d forms on f16
    for sd in ["%p1", "!%p1", "0", "1", "2", "%r5"]:
        for sa in ["1", "-1", "0", "2"]:
            for tr in ["0", "1", "2"]:
                out.append(line(64, 16, "f32", "f16", "f16", "", False, [sd, sa, "1", tr, "1"]))
                out.append(line(64, 16, "f32", "f16", "f16", "", True, [sd, "1", sa, tr]))
    for sd in ["%p1", "0", "1", "%r5"]:
        out.append(line(64, 32, "s32", "s8", "s8", "", False, [sd]))
        out.append(line(64, 8, "f32", "tf32", "tf32", "", False, [sd, "-1", "1"]))
    out.append(line(64, 16, "f32", "f16", "f16", "", False, ["%p1", "%r5", "1", "0", "1"]))
    out.append(line(64, 16, "f32", "f16", "f16", "", False, ["%p1", "1", "1", "%r5", "1"]))
    # descriptors in 32-bit registers, A register vectors as %rd
    out.append("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1,%f2,%f3,%f4}, %r1, %rd2, %p1, 1, 1, 0, 0;")
    out.append("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1,%f2,%f3,%f4}, %rd1, %r2, %p1, 1, 1, 0, 0;")
    out.append("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1,%f2,%f3,%f4}, {%f200,%f201,%f202,%f203}, %rd2, %p1, 1, 1, 0;")
    out.append("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1,%f2,%f3,%f4}, %rd1, {%r200,%r201,%r202,%r203}, %p1, 1, 1, 0, 0;")
    out.append("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1,%f2,%f3,_}, %rd1, %rd2, %p1, 1, 1, 0, 0;")
    out.append("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1,%f2,%f3,%f4}, [%rd1], %rd2, %p1, 1, 1, 0, 0;")
    # qualifier spelling
    out.append("wgmma.mma_async.aligned.m64n8k16.f32.f16.f16 {%f1,%f2,%f3,%f4}, %rd1, %rd2, %p1, 1, 1, 0, 0;")
    out.append("wgmma.mma_async.sync.m64n8k16.f32.f16.f16 {%f1,%f2,%f3,%f4}, %rd1, %rd2, %p1, 1, 1, 0, 0;")
    out.append("wgmma.mma_async.sync.aligned.m32n8k16.f32.f16.f16 {%f1,%f2,%f3,%f4}, %rd1, %rd2, %p1, 1, 1, 0, 0;")
    out.append("wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f32 {%r1,%r2}, %rd1, %rd2, %p1, 1, 1, 0, 0;")
    for s in ["wgmma.fence.sync.aligned;", "wgmma.fence.sync;", "wgmma.fence.aligned;",
              "wgmma.fence;", "wgmma.commit_group.sync.aligned;", "wgmma.commit_group.sync;",
              "wgmma.commit_group;", "wgmma.wait_group.sync.aligned 0;",
              "wgmma.wait_group.sync.aligned 1;", "wgmma.wait_group.sync.aligned 7;",
              "wgmma.wait_group.sync.aligned 8;", "wgmma.wait_group.sync.aligned %r5;",
              "wgmma.wait_group.sync.aligned 65535;",
              "wgmma.wait_group.sync.aligned;", "wgmma.wait_group 0;",
              "wgmma.wait_group.sync.aligned -1;", "wgmma.fence.sync.aligned 0;",
              "wgmma.commit_group.sync.aligned 0;", "wgmma.wait.sync.aligned 0;"]:
        out.append(s)
    return out


def main():
    one_line_cases.main(HERE, "gen_wgmma.py", "wgmma_kernel.ptx", "wgmma.tsv", TARGETS, cases())


if __name__ == "__main__":
    main()
