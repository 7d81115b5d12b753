#!/usr/bin/env python3
"""Generates one-instruction cases of the tcgen05 Tensor Memory instructions (ld, st, ld.red,
alloc, dealloc, relinquish_alloc_permit, wait, fence, shift), asks NVIDIA's ptxas which it
accepts at several targets, and records the verdicts in tcgen05.tsv.

Usage: gen_tcgen05.py PTXAS [MESSAGES] [--check N]
  PTXAS: path to ptxas from the PyPI package nvidia-cuda-nvcc 13.x
  MESSAGES: where to write ptxas's first message for every rejected case (not committed)
  --check N: afterwards assemble N randomly chosen cases (default 300; 0 skips, "all" checks
             every case) on their own at every target and fail if any verdict differs

Each case is one instruction line placed in the kernel of tcgen05_kernel.ptx. Cases are batched
many per file; ptxas names the line of every error, so each rejected case is attributed by its
line. A syntax error is fatal and ends the parse, so the cases after it are assembled again.
Every batch of cases ptxas accepted is assembled again on its own, until no case is rejected,
to confirm that no later compiler phase rejects them. ptxas refuses a kernel that mixes
.cta_group::1 and .cta_group::2 (a whole-kernel error with no line), so a batch never mixes the
two. A final check assembles a random sample of cases alone and compares.
"""

import itertools
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# (.target, .version, -arch). ptxas 13.5 no longer has -arch=sm_101a, but it still accepts
# `.target sm_101a` (renamed sm_110a in PTX ISA 9.0) and compiles it for sm_110a.
TARGETS = [
    ("sm_90", "8.7", "sm_90"),
    ("sm_100", "8.8", "sm_100"),
    ("sm_100a", "8.6", "sm_100a"),
    ("sm_100a", "8.8", "sm_100a"),
    ("sm_100a", "9.5", "sm_100a"),
    ("sm_100f", "8.8", "sm_100f"),
    ("sm_101a", "8.6", "sm_110a"),
    ("sm_101a", "8.8", "sm_110a"),
    ("sm_103a", "8.8", "sm_103a"),
    ("sm_103f", "8.8", "sm_103f"),
    ("sm_110a", "9.0", "sm_110a"),
    ("sm_110f", "9.0", "sm_110f"),
    ("sm_120a", "8.8", "sm_120a"),
]

# shape -> registers per .num repeat
SHAPES = {"32x32b": 1, "16x64b": 1, "16x128b": 2, "16x256b": 4, "16x32bx2": 1}
NUMS = [1, 2, 4, 8, 16, 32, 64, 128]
ADDRS = ["[%r2]", "[%r2+16]", "[%r2+-16]", "[%r2-16]", "[%r2+0x100000]"]
TADDR = "[%r2]"
NCOLS = ["0", "16", "32", "48", "64", "96", "128", "256", "512", "1024", "%r3"]


def vec(n, base="%r", start=10, sep=", "):
    return "{" + sep.join(f"{base}{start + i}" for i in range(n)) + "}"


def q(*parts):
    return "".join("." + p for p in parts if p)


def ldst(op, shape, num, pack=None, count=None, reg="%r", addr=TADDR, imm="default",
         sync="sync.aligned", ty="b32", order="num-pack", pred=""):
    """One tcgen05.ld / tcgen05.st line. `imm` "default" gives 16x32bx2 its immediate (1) and
    the other shapes none; None leaves it out; any other string is used as is."""
    n = SHAPES[shape] * num if count is None else count
    if imm == "default":
        imm = "1" if shape == "16x32bx2" else None
    mods = [f"x{num}", pack] if order == "num-pack" else [pack, f"x{num}"]
    head = f"tcgen05.{op}" + q(sync, shape, *mods, ty)
    regs = vec(n, reg)
    if op == "ld":
        args = [regs, addr] + ([imm] if imm is not None else [])
    else:
        args = [addr] + ([imm] if imm is not None else []) + [regs]
    return f"{pred}{head} {', '.join(args)};"


def red(shape, num, op="max", ty="f32", flags=(), order="op-type", count=None, reg=None,
        redval=None, imm="default", pack=None, sync="sync.aligned"):
    n = SHAPES[shape] * num if count is None else count
    if reg is None:
        reg = "%f" if ty == "f32" else "%r"
    if redval is None:
        redval = "%f5" if ty == "f32" else "%r5"
    if imm == "default":
        imm = "1" if shape == "16x32bx2" else None
    tail = [op, *flags, ty] if order == "op-type" else [ty, op, *flags]
    head = "tcgen05.ld.red" + q(sync, shape, f"x{num}", pack, *tail)
    args = [vec(n, reg), redval, TADDR] + ([imm] if imm is not None else [])
    return f"{head} {', '.join(args)};"


def cases():
    out = []
    add = out.append

    # ---- tcgen05.ld / tcgen05.st: shape x num x packing x vector size ----
    for op, good, bad in (("ld", "pack::16b", "unpack::16b"), ("st", "unpack::16b", "pack::16b")):
        for shape, num, pack in itertools.product(SHAPES, NUMS, [None, good, bad]):
            full = SHAPES[shape] * num
            if full <= 128:
                sizes = [full, full - 1] + ([full + 1] if full + 1 <= 128 else [])
            else:
                # Beyond the table (NA): the size the formula gives where registers allow, and 128.
                sizes = [128] + ([full] if full <= 256 else [])
            for n in sizes:
                if n >= 1:
                    add(ldst(op, shape, num, pack, count=n))
        # .f32 registers, every shape and num, with and without packing.
        for shape, num, pack in itertools.product(SHAPES, NUMS, [None, good]):
            if SHAPES[shape] * num <= 128:
                add(ldst(op, shape, num, pack, reg="%f"))
        # Address forms x shapes x a few nums x packing.
        for shape, num, addr, pack in itertools.product(SHAPES, [1, 4, 32], ADDRS + ["[%rd1]", "[slot]", "[16]"], [None, good]):
            add(ldst(op, shape, num, pack, addr=addr))
        # immHalfSplitoff: register, negative, with lane bits, 64-bit literal, float, missing;
        # and present on the other shapes.
        for num, imm, pack in itertools.product([1, 2, 32, 128], ["0", "1", "%r3", "-16", "0x100010", "0x100000000", "1.0", None], [None, good]):
            add(ldst(op, "16x32bx2", num, pack, imm=imm))
        for shape, imm in itertools.product(["32x32b", "16x64b", "16x128b", "16x256b"], ["1", "%r3"]):
            add(ldst(op, shape, 2, imm=imm))
        # .sync/.aligned missing or reordered; type missing or different; qualifier order.
        for shape, num in itertools.product(SHAPES, [1, 16]):
            for sync in ["sync", "aligned", None, "aligned.sync"]:
                add(ldst(op, shape, num, sync=sync))
            for ty in [None, "f32", "u32", "s32", "b64", "b16"]:
                add(ldst(op, shape, num, ty=ty))
            add(ldst(op, shape, num, good, order="pack-num"))
            add(ldst(op, shape, num, good, sync="sync.aligned", order="pack-num", reg="%f"))
        for shape in SHAPES:
            n = 2
            regs = vec(SHAPES[shape] * n)
            rest = ", 1" if shape == "16x32bx2" else ""
            a = f"{regs}, [%r2]{rest}" if op == "ld" else f"[%r2]{rest}, {regs}"
            for mods in [f"x{n}.{shape}.sync.aligned", f"{shape}.x{n}.sync.aligned", f"sync.{shape}.aligned.x{n}",
                         f"sync.aligned.b32.{shape}.x{n}", f"sync.aligned.{shape}.b32.x{n}", f"sync.aligned.x{n}.{shape}",
                         f"sync.aligned.{shape}.x{n}.{good}.{good}", f"sync.aligned.{shape}.{shape}.x{n}",
                         f"sync.aligned.{shape}", f"sync.aligned.x{n}", f"sync.sync.aligned.{shape}.x{n}",
                         f"sync.aligned.aligned.{shape}.x{n}", f"sync.aligned.{shape}.x{n}.b32.b32"]:
                ty = "" if ".b32" in mods else ".b32"
                add(f"tcgen05.{op}.{mods}{ty} {a};")
        # Unknown nums and shapes.
        for num in ["x0", "x3", "x256", "x1.x2"]:
            a = "{%r10, %r11, %r12}, [%r2]" if op == "ld" else "[%r2], {%r10, %r11, %r12}"
            add(f"tcgen05.{op}.sync.aligned.32x32b.{num}.b32 {a};")
        for shape in ["32x64b", "16x32b", "32x32bx2", "16x512b", "8x32b"]:
            a = "{%r10}, [%r2]" if op == "ld" else "[%r2], {%r10}"
            add(f"tcgen05.{op}.sync.aligned.{shape}.x1.b32 {a};")
        # Register vectors: scalars, sinks, repeats, mixed and wrong register kinds, spacing.
        for data in ["%r10", "{%r10, _}", "{_, %r10}", "{%r10, %r10}", "{%r10, %f11}", "{%f10, %r11}", "{%rd2, %rd3}",
                     "{%p1, %p2}", "{%r10,%r11}", "{ %r10, %r11 }", "{%r11, %r10}", "{%r10, %r12}", "{5, 6}"]:
            num = 1 if data == "%r10" else 2
            a = f"{data}, [%r2]" if op == "ld" else f"[%r2], {data}"
            add(f"tcgen05.{op}.sync.aligned.32x32b.x{num}.b32 {a};")
        # Guard predicates.
        for shape, pred in itertools.product(SHAPES, ["@%p1 ", "@!%p1 "]):
            add(ldst(op, shape, 2, pred=pred))
    # ---- tcgen05.ld.red ----
    for shape, num in itertools.product(SHAPES, NUMS):
        if SHAPES[shape] * num <= 128:
            add(red(shape, num, "max", "f32"))
            add(red(shape, num, "min", "u32"))
            add(red(shape, num, "max", "s32", order="type-op"))
    fflags = [(), ("abs",), ("NaN",), ("abs", "NaN"), ("NaN", "abs")]
    for shape, num, op, ty, flags, order in itertools.product(["32x32b", "16x32bx2"], [1, 2, 4, 128], ["min", "max"], ["f32", "u32", "s32"], fflags, ["op-type", "type-op"]):
        add(red(shape, num, op, ty, flags, order))
    # Register kinds of the destination and of redval.
    for shape, ty, reg, redval in itertools.product(["32x32b", "16x32bx2"], ["f32", "u32", "s32"], ["%r", "%f"], ["%r5", "%f5", "%rd2"]):
        add(red(shape, 4, "max", ty, reg=reg, redval=redval))
    # Things the ISA does not list: packing, other types and operators, wrong sizes, flags twice.
    for shape, num in itertools.product(["32x32b", "16x32bx2"], [2, 32]):
        add(red(shape, num, pack="pack::16b"))
        add(red(shape, num, ty="u32", pack="pack::16b"))
        for ty in ["b32", "f16", "u64", "f64", "s16", None]:
            add(red(shape, num, ty=ty, reg="%r" if ty != "f32" else "%f", redval="%r5"))
        for op in ["add", "min.max", "and", None]:
            add(red(shape, num, op=op))
            add(red(shape, num, op=op, ty="u32"))
        for flags in [("abs", "abs"), ("NaN", "NaN"), ("ftz",), ("relu",)]:
            add(red(shape, num, flags=flags))
        add(red(shape, num, count=num - 1))
        add(red(shape, num, count=num + 1))
        add(red(shape, num, redval=None).replace(", %f5,", ","))
        for sync in ["sync", "aligned", None, "aligned.sync"]:
            add(red(shape, num, sync=sync))
        add(f"tcgen05.ld.red.sync.aligned.{shape}.x{num}.max.f32 {vec(num, '%f')}, %f5, [%r2]" + (", 1" if shape == "16x32bx2" else "") + ", %r3;")
        add(f"tcgen05.ld.red.sync.aligned.{shape}.max.x{num}.f32 {vec(num, '%f')}, %f5, [%r2]" + (", 1" if shape == "16x32bx2" else "") + ";")
        add(f"tcgen05.ld.sync.aligned.red.{shape}.x{num}.max.f32 {vec(num, '%f')}, %f5, [%r2]" + (", 1" if shape == "16x32bx2" else "") + ";")
        add(f"tcgen05.ld.sync.aligned.{shape}.x{num}.max.f32 {vec(num, '%f')}, %f5, [%r2]" + (", 1" if shape == "16x32bx2" else "") + ";")
        add(f"tcgen05.st.red.sync.aligned.{shape}.x{num}.max.f32 [%r2], " + ("1, " if shape == "16x32bx2" else "") + f"%f5, {vec(num, '%f')};")
    for imm in ["%r3", "-16", "0x100010", None]:
        add(red("16x32bx2", 4, imm=imm))
        add(red("16x32bx2", 4, ty="s32", imm=imm))
    add(red("32x32b", 4, imm="1"))
    for addr in ADDRS[1:] + ["[%rd1]"]:
        add(red("32x32b", 4).replace("[%r2]", addr))
    add("@%p1 " + red("32x32b", 4))
    add("@!%p1 " + red("16x32bx2", 4, ty="u32"))
    # ---- alloc / dealloc / relinquish_alloc_permit ----
    for cta, ss, addr, nc in itertools.product(["cta_group::1", "cta_group::2"], ["shared::cta", None], ["[%r1]", "[%rd1]", "[slot]"], NCOLS):
        add(f"tcgen05.alloc{q(cta, 'sync.aligned', ss, 'b32')} {addr}, {nc};")
    for cta in ["cta_group::1", "cta_group::2", None, "cta_group::3", "cta_group::1.cta_group::1"]:
        for ss in ["shared::cta", None, "shared", "shared::cluster", "global", "local"]:
            for sync, ty in [("sync.aligned", "b32"), ("sync", "b32"), ("aligned", "b32"), (None, "b32"), ("aligned.sync", "b32"),
                             ("sync.aligned", None), ("sync.aligned", "u32"), ("sync.aligned", "b64")]:
                if cta in ("cta_group::1", "cta_group::2") and ss == "shared::cta" and sync == "sync.aligned" and ty == "b32":
                    continue
                if ss not in ("shared::cta", None) and (sync != "sync.aligned" or ty != "b32"):
                    continue
                add(f"tcgen05.alloc{q(cta, sync, ss, ty)} [%r1], 32;")
        add(f"tcgen05.alloc{q(cta, 'sync.aligned', 'shared::cta', 'b32')} [%r1], %r3;")
    for cta in ["cta_group::1", "cta_group::2"]:
        for tail in ["shared::cta.sync.aligned.b32", "sync.shared::cta.aligned.b32", "b32.sync.aligned.shared::cta", "sync.aligned.b32.shared::cta"]:
            add(f"tcgen05.alloc.{tail}.{cta} [%r1], 32;")
            add(f"tcgen05.alloc.{cta}.{tail} [%r1], 32;")
        for args in ["[%r1+4], 32", "[%r1], %rd2", "[%r1], %f1", "%r1, 32", "[%r1]", "[%r1], 32, 32", "[%r1], -32", "[%r1], 0x20", "[%r1], 33", "[%r1], 2048"]:
            add(f"tcgen05.alloc.{cta}.sync.aligned.shared::cta.b32 {args};")
        add(f"@%p1 tcgen05.alloc.{cta}.sync.aligned.shared::cta.b32 [%r1], 32;")
        add(f"@!%p1 tcgen05.dealloc.{cta}.sync.aligned.b32 %r2, 32;")
        add(f"@%p1 tcgen05.relinquish_alloc_permit.{cta}.sync.aligned;")
    for cta, taddr, nc in itertools.product(["cta_group::1", "cta_group::2"], ["%r2", "%rd1", "5", "[%r2]", "%f1"], NCOLS):
        if taddr != "%r2" and nc not in ("32", "%r3"):
            continue
        add(f"tcgen05.dealloc{q(cta, 'sync.aligned', 'b32')} {taddr}, {nc};")
    for cta in ["cta_group::1", "cta_group::2", None, "cta_group::3"]:
        for mods in ["sync.aligned.b32", "sync.b32", "aligned.b32", "b32", "aligned.sync.b32", "sync.aligned", "sync.aligned.u32",
                     "sync.aligned.shared::cta.b32", "sync.aligned.b64"]:
            if cta in ("cta_group::1", "cta_group::2") and mods == "sync.aligned.b32":
                continue
            add(f"tcgen05.dealloc{q(cta, mods)} %r2, 32;")
    for cta in ["cta_group::1", "cta_group::2"]:
        add(f"tcgen05.dealloc.sync.aligned.b32.{cta} %r2, 32;")
        add(f"tcgen05.dealloc.{cta}.sync.aligned.b32 %r2, %rd2;")
        add(f"tcgen05.dealloc.{cta}.sync.aligned.b32 %r2;")
        add(f"tcgen05.dealloc.{cta}.sync.aligned.b32  %r2, %r3;")
    for cta in ["cta_group::1", "cta_group::2", None, "cta_group::3"]:
        for mods in ["sync.aligned", "sync", "aligned", None, "aligned.sync", "sync.aligned.b32", "sync.aligned.shared::cta"]:
            add(f"tcgen05.relinquish_alloc_permit{q(cta, mods)};")
        add(f"tcgen05.relinquish_alloc_permit{q(cta, 'sync.aligned.aligned')};")
        add(f"tcgen05.relinquish_alloc_permit{q(cta, 'sync.aligned')} [%r1];")
    add("tcgen05.relinquish_alloc_permit.sync.aligned.cta_group::1;")
    add("tcgen05.relinquish_alloc_permit.sync.aligned.cta_group::2;")
    # ---- wait / fence ----
    for kind in ["wait::ld", "wait::st", "wait::mma", "wait::cp", "wait", "wait::ld::st"]:
        for mods in ["sync.aligned", "sync", "aligned", None, "aligned.sync", "sync.aligned.b32"]:
            add(f"tcgen05.{kind}{q(mods)};")
    add("tcgen05.wait::ld.sync.aligned %r2;")
    add("tcgen05.wait::ld.sync.sync.aligned;")
    add("tcgen05.wait::ld.wait::st.sync.aligned;")
    add("tcgen05.wait.ld.sync.aligned;")
    add("tcgen05.sync.aligned.wait::ld;")
    for kind in ["fence::before_thread_sync", "fence::after_thread_sync", "fence", "fence::before", "fence::after",
                 "fence::thread_sync", "fence::before_thread_sync::after_thread_sync"]:
        for mods in [None, "sync.aligned", "sync", "aligned", "cta_group::1", "cta_group::2"]:
            add(f"tcgen05.fence{kind[5:]}{q(mods)};")
    add("tcgen05.fence::before_thread_sync [%r2];")
    add("tcgen05.fence.before_thread_sync;")
    for kind in ["wait::ld.sync.aligned", "wait::st.sync.aligned", "fence::before_thread_sync", "fence::after_thread_sync"]:
        add(f"@%p1 tcgen05.{kind};")
        add(f"@!%p1 tcgen05.{kind};")
    # ---- shift ----
    for cta in ["cta_group::1", "cta_group::2"]:
        for mods in [f"{cta}.down", f"down.{cta}", cta, f"{cta}.up", f"up.{cta}", f"{cta}.down.sync.aligned",
                     f"sync.aligned.{cta}.down", f"{cta}.down.b32", f"{cta}.down.31x256b", f"{cta}.down.down"]:
            add(f"tcgen05.shift.{mods} [%r2];")
        for addr in ADDRS[1:] + ["[%rd1]", "[slot]", "%r2", "[16]"]:
            add(f"tcgen05.shift.{cta}.down {addr};")
        add(f"tcgen05.shift.{cta}.down [%r2], 1;")
        add(f"@%p1 tcgen05.shift.{cta}.down [%r2];")
    for mods in ["down", "", "up"]:
        add(f"tcgen05.shift{q(mods)} [%r2];")
    add("tcgen05.shift.cta_group::3.down [%r2];")
    # ---- CUTLASS's concatenated asm strings, exactly as emitted ----
    add("tcgen05.ld.sync.aligned.32x32b.x1.b32{%r10},[%r2];")
    add("tcgen05.ld.sync.aligned.32x32b.x2.b32{%r10, %r11},[%r2];")
    add("tcgen05.ld.sync.aligned.16x256b.x1.b32{%r10, %r11, %r12, %r13},[%r2];")
    add("tcgen05.ld.sync.aligned.16x32bx2.x1.b32{%r10},[%r2], 1;")
    add("tcgen05.ld.sync.aligned.16x32bx2.x1.pack::16b.b32{%r10},[%r2], 2;")
    add("tcgen05.ld.sync.aligned.16x64b.x2.pack::16b.b32{%r10, %r11},[%r2];")
    add("tcgen05.st.sync.aligned.32x32b.x1.b32[%r2],{%r10};")
    add("tcgen05.st.sync.aligned.32x32b.x2.b32[%r2],{%r10, %r11};")
    add("tcgen05.st.sync.aligned.16x32bx2.x1.b32[%r2] , 1,{%r10};")
    add("tcgen05.st.sync.aligned.16x32bx2.x1.unpack::16b.b32[%r2] , 2,{%r10};")
    add("tcgen05.st.sync.aligned.16x128b.x1.unpack::16b.b32[%r2],{%r10, %r11};")
    add(f"tcgen05.ld.red.sync.aligned.32x32b.x32.max.f32{vec(32, '%f')},%f5,[%r2];")
    add(f"tcgen05.ld.red.sync.aligned.32x32b.x32.max.f32{vec(32, '%f')}, %f5,[%r2];")
    add("tcgen05.ld.red.sync.aligned.16x32bx2.x2.min.u32{%r10, %r11},%r5,[%r2], 2;")
    add("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], %r3;")
    add("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32[%r1],%r3;")
    add("tcgen05.dealloc.cta_group::1.sync.aligned.b32  %r2, %r3; ")
    add("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2,%r3;")
    add("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned; ")
    add("tcgen05.shift.cta_group::1.down[%r2];")
    add("tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r10, %r11}, [%r2 + 16];")
    add("tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r10, %r11}, [ %r2 ];")
    seen = set()
    return [c for c in out if not (c in seen or seen.add(c))]


def group(case):
    """Batches never mix .cta_group::2 with anything that ptxas counts as .cta_group::1."""
    return 2 if "cta_group::2" in case else 1


def template():
    with open(os.path.join(HERE, "tcgen05_kernel.ptx")) as f:
        return f.read()


CRASH = "ptxas exits with status"
LINE = re.compile(r", line (\d+); (error|fatal)\s*:\s*(.*)")
RUNS = [0]


def run_ptxas(ptxas, col, lines):
    target, version, arch = col
    head, tail = template().split("{body}")
    head = head.replace("{version}", version).replace("{target}", target)
    first = head.count("\n") + 1
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(head + "\n".join(lines) + tail)
        path = f.name
    r = subprocess.run([ptxas, f"-arch={arch}", path, "-o", os.devnull], capture_output=True, text=True, errors="replace")
    os.unlink(path)
    RUNS[0] += 1
    bad, fatal, other = {}, None, []
    for line in (r.stdout + r.stderr).splitlines():
        m = LINE.search(line)
        if m:
            k = int(m.group(1)) - first
            if 0 <= k < len(lines):
                bad.setdefault(k, m.group(3).strip())
                if m.group(2) == "fatal" and fatal is None:
                    fatal = k
            else:
                other.append(line)
        elif ("error" in line or "fatal" in line) and "aborted" not in line:
            other.append(line)
    return r.returncode, bad, fatal, other


def assemble(ptxas, col, lines):
    """Returns {index in `lines`: first message} for the cases ptxas rejects in this batch."""
    if not lines:
        return {}
    rc, bad, fatal, other = run_ptxas(ptxas, col, lines)
    if rc == 0:
        return {}
    if bad:
        if fatal is not None:
            # A fatal error ends the parse: the cases after it have not been looked at.
            for k, m in assemble(ptxas, col, lines[fatal + 1:]).items():
                bad[fatal + 1 + k] = m
        return bad
    # No line named (a whole-kernel error, or a crash): split until the culprit is alone.
    if len(lines) == 1:
        msg = " / ".join(o.split(":", 1)[-1].strip() for o in other) if other else ""
        if rc < 0 or not msg:
            return {0: f"{CRASH} {rc} and no message"}
        return {0: msg}
    half = len(lines) // 2
    bad = assemble(ptxas, col, lines[:half])
    for k, m in assemble(ptxas, col, lines[half:]).items():
        bad[half + k] = m
    return bad


BATCH = 400


def verdicts(ptxas, col, cs):
    bad = {}
    for g in (1, 2):
        idx = [i for i, c in enumerate(cs) if group(c) == g]
        for start in range(0, len(idx), BATCH):
            chunk = idx[start:start + BATCH]
            for k, m in assemble(ptxas, col, [cs[i] for i in chunk]).items():
                bad[chunk[k]] = m
    # Confirm the accepted ones together, batch by batch, until ptxas accepts every batch
    # (a later phase could reject some, and stops at its first fatal error).
    while True:
        more = {}
        for g in (1, 2):
            ok = [i for i, c in enumerate(cs) if group(c) == g and i not in bad]
            for start in range(0, len(ok), BATCH):
                chunk = ok[start:start + BATCH]
                for k, m in assemble(ptxas, col, [cs[i] for i in chunk]).items():
                    more[chunk[k]] = m
        if not more:
            return bad
        bad.update(more)


def letter(i, rejected):
    """A: accepted; R: rejected with a message; C: ptxas crashed on it (no message)."""
    if i not in rejected:
        return "A"
    return "C" if rejected[i].startswith(CRASH) else "R"


def alone(ptxas, col, case):
    rc, bad, fatal, other = run_ptxas(ptxas, col, [case])
    if rc == 0:
        return "A"
    return "R" if (bad or other) and rc > 0 else "C"


def main():
    args = sys.argv[1:]
    check = "300"
    if "--check" in args:
        i = args.index("--check")
        check = args[i + 1]
        del args[i:i + 2]
    ptxas = args[0]
    t0 = time.time()
    cs = cases()
    for c in cs:
        assert "\t" not in c and "\n" not in c, c
    results = []
    for col in TARGETS:
        results.append(verdicts(ptxas, col, cs))
        print(f"{col[0]}/{col[1]}: {len(cs) - len(results[-1])} of {len(cs)} accepted", file=sys.stderr)
    ver = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    with open(os.path.join(HERE, "tcgen05.tsv"), "w") as f:
        f.write(f"# ptxas per target: A accepts, R rejects, C crashes; generated by gen_tcgen05.py with {ver}\n")
        f.write("# targets\t" + "\t".join(f"{t}/{v}" for t, v, _ in TARGETS) + "\n")
        for i, c in enumerate(cs):
            f.write(c + "\t" + "".join(letter(i, r) for r in results) + "\n")
    if args[1:]:
        with open(args[1], "w") as f:
            f.write("# the first ptxas message for each rejected case, per target\n")
            for i, c in enumerate(cs):
                for (t, v, _), r in zip(TARGETS, results):
                    if i in r:
                        f.write(f"{t}/{v}\t{c}\t{r[i]}\n")
    batched_runs = RUNS[0]
    # Batching is an optimisation: check that a sample of cases alone gets the same verdicts.
    sample = list(range(len(cs))) if check == "all" else sorted(random.Random(5).sample(range(len(cs)), min(int(check), len(cs))))
    diffs = []
    for i in sample:
        for col, r in zip(TARGETS, results):
            got = alone(ptxas, col, cs[i])
            if got != letter(i, r):
                diffs.append(f"{col[0]}/{col[1]}\t{cs[i]}\tbatched {letter(i, r)}, alone {got}")
    print(f"{len(cs)} cases x {len(TARGETS)} targets = {len(cs) * len(TARGETS)} verdicts; {batched_runs} batched ptxas runs; "
          f"{len(sample)} cases checked alone at every target ({len(sample) * len(TARGETS)} runs): {len(diffs)} differ; "
          f"{time.time() - t0:.0f} s", file=sys.stderr)
    if diffs:
        raise SystemExit("batched and lone verdicts differ:\n" + "\n".join(diffs))


if __name__ == "__main__":
    main()
