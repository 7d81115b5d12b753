#!/usr/bin/env python3
"""Generates one-instruction cases of the warp-level matrix instructions (mma.sync.aligned,
ldmatrix, stmatrix, movmatrix, wmma.load/store/mma), asks NVIDIA's ptxas which it accepts at several targets, and
records the verdicts in mma.tsv.

Usage: gen_mma.py PTXAS [MESSAGES]
  PTXAS: path to ptxas from the PyPI package nvidia-cuda-nvcc 13.x
  MESSAGES: where to write ptxas's first message for every rejected case (not committed)

Each case is one instruction line placed in the kernel of mma_kernel.ptx. Cases are batched
many per file; ptxas names the line of every error, so each rejected case is attributed by its
line and the rest of the batch is assembled again, until ptxas accepts what is left (a syntax
error ends the parse, and later phases report only their first error). When ptxas names no
line, the batch is split in halves. ptxas lowers wmma late and, in a batch, can blame one wmma
line for another's errors (even syntax errors), so every rejected wmma case, and every rejection
with a late-lowering message, is confirmed by assembling the case alone.

Not covered: mma.sp and the sub-byte wmma forms, which ptxemu refuses as unsupported.
"""

import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))

# (.target, .version, -arch)
TARGETS = [
    ("sm_75", "6.5", "sm_75"),
    ("sm_75", "7.0", "sm_75"),
    ("sm_80", "7.0", "sm_80"),
    ("sm_86", "7.1", "sm_86"),
    ("sm_89", "7.8", "sm_89"),
    ("sm_89", "8.7", "sm_89"),
    ("sm_90", "7.8", "sm_90"),
    ("sm_90", "8.7", "sm_90"),
    ("sm_100a", "8.8", "sm_100a"),
    ("sm_120a", "8.8", "sm_120a"),
]

SHAPES = ["m8n8k4", "m8n8k16", "m8n8k32", "m8n8k128", "m16n8k4", "m16n8k8", "m16n8k16",
          "m16n8k32", "m16n8k64", "m16n8k128", "m16n8k256"]

TYPES = [
    "f16.f16.f16.f16", "f32.f16.f16.f32", "f32.f16.f16.f16", "f16.f16.f16.f32",
    "f32.bf16.bf16.f32", "f32.tf32.tf32.f32", "f64.f64.f64.f64",
    "s32.s8.s8.s32", "s32.u8.s8.s32", "s32.s4.s4.s32", "s32.u4.s4.s32", "s32.b1.b1.s32",
    "f32.e4m3.e4m3.f32", "f32.e5m2.e4m3.f32", "f16.e4m3.e5m2.f16",
    "f32.bf16.bf16.bf16", "f16.bf16.bf16.f16", "f32.tf32.f32.f32", "s32.s8.s4.s32",
]

BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64, "s8": 8, "u8": 8, "s4": 4,
        "u4": 4, "b1": 1, "e4m3": 8, "e5m2": 8, "s32": 32}


def mnk(shape):
    m, rest = shape[1:].split("n")
    n, k = rest.split("k")
    return int(m), int(n), int(k)


def frag_regs(shape, d, a, b, c):
    """Register counts of A, B, C, D by the ISA's fragment figures (None when the element
    counts do not divide)."""
    m, n, k = mnk(shape)
    if shape == "m8n8k4" and a == "f16":
        ea, eb, ec = 4, 4, 8
    else:
        ea, eb, ec = m * k // 32, k * n // 32, m * n // 32

    def per(t):
        return 1 if t == "f64" else 32 // BITS[t]

    out = []
    for e, t in [(ea, a), (eb, b), (ec, c), (ec, d)]:
        if e == 0 or e % per(t):
            return None
        out.append(e // per(t))
    return out


def vec(n, t, start):
    if t == "f64":
        return "{" + ", ".join(f"%fd{start + i}" for i in range(n)) + "}"
    if t == "f32":
        return "{" + ", ".join(f"%f{start + i}" for i in range(n)) + "}"
    return "{" + ", ".join(f"%r{start + i}" for i in range(n)) + "}"


def mma_line(shape, layouts, types, extra=(), delta=0):
    d, a, b, c = types.split(".")
    regs = frag_regs(shape, d, a, b, c) or [1, 1, 1, 1]
    ra, rb, rc, rd = regs
    quals = ".".join(["mma", "sync", "aligned", shape, *layouts.split("."), *extra[:1], types, *extra[1:]])
    quals = quals.replace("..", ".").rstrip(".")
    return (f"{quals} {vec(rd + delta, d, 10)}, {vec(ra, a, 40)}, {vec(rb, b, 80)}, "
            f"{vec(rc, c, 100)};")


def mma_cases():
    out = []
    for shape in SHAPES:
        for types in TYPES:
            for layouts in ["row.col", "col.row", "row.row", "col.col"]:
                out.append(mma_line(shape, layouts, types))
            a = types.split(".")[1]
            if a in ("s8", "u8", "s4", "u4", "b1") or types.startswith("f32.f16"):
                out.append(mma_line(shape, "row.col", types, extra=("satfinite",)))
            if a == "b1":
                for op in ["xor.popc", "and.popc", "xor", "popc"]:
                    out.append(mma_line(shape, "row.col", types, extra=("", op)))
            if a == "f64":
                out.append(mma_line(shape, "row.col", types, extra=("rn",)))
            if frag_regs(shape, *types.split(".")[:1], *types.split(".")[1:]):
                out.append(mma_line(shape, "row.col", types, delta=1))
    # Register kinds: f32 accumulators in %r registers, packed halves in %f registers.
    out.append("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r10, %r11, %r12, %r13}, "
               "{%r40, %r41, %r42, %r43}, {%r80, %r81}, {%r100, %r101, %r102, %r103};")
    out.append("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f10, %f11, %f12, %f13}, "
               "{%f40, %f41, %f42, %f43}, {%f80, %f81}, {%f100, %f101, %f102, %f103};")
    out.append("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%r10, %r11}, %r40, %r80, {%r100, %r101};")
    out.append("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd10, %fd11}, %fd40, %fd80, {%fd100, %fd101};")
    out.append("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f10, %f11, %f12, %f13}, "
               "{%r40, %r41, %r42, %r43}, {%r80, %r81}, {%f100, %f101, %f102, 0f00000000};")
    out.append("mma.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f10, %f11, %f12, %f13}, "
               "{%r40, %r41, %r42, %r43}, {%r80, %r81}, {%f100, %f101, %f102, %f103};")
    out.append("mma.sync.m16n8k16.row.col.f32.f16.f16.f32 {%f10, %f11, %f12, %f13}, "
               "{%r40, %r41, %r42, %r43}, {%r80, %r81}, {%f100, %f101, %f102, %f103};")
    out.append("@%p1 mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%f10, %f11, %f12, %f13}, "
               "{%r40, %r41}, {%r80}, {%f100, %f101, %f102, %f103};")
    return out


def move_cases():
    out = []
    addrs = {"": "[%rd1]", ".shared": "[%r1]", ".shared::cta": "[%r1]", ".global": "[%rd1]"}
    fmts = ["b16", "b8", "b8x16.b6x16_p32", "b8x16.b4x16_p64"]
    for op, shapes in [("ldmatrix", ["m8n8", "m16n16", "m8n16"]), ("stmatrix", ["m8n8", "m16n8"])]:
        for shape in shapes:
            for num in [1, 2, 4]:
                for trans in ["", ".trans"]:
                    for space, addr in addrs.items():
                        for fmt in fmts if op == "ldmatrix" else ["b16", "b8"]:
                            n = 2 * num if shape == "m16n16" else num
                            v = "{" + ", ".join(f"%r{10 + i}" for i in range(n)) + "}"
                            q = f"{op}.sync.aligned.{shape}.x{num}{trans}{space}.{fmt}"
                            out.append(f"{q} {v}, {addr};" if op == "ldmatrix" else f"{q} {addr}, {v};")
    out += [
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10, %r11, %r12}, [%r1];",
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 %r10, [%r1];",
        "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%f10, %f11}, [%r1];",
        "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%rd2, %rd3}, [%r1];",
        "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r10, %r11}, [%r1+16];",
        "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r10, %r11}, [slot];",
        "ldmatrix.aligned.m8n8.x2.shared.b16 {%r10, %r11}, [%r1];",
        "ldmatrix.sync.m8n8.x2.shared.b16 {%r10, %r11}, [%r1];",
        "@%p1 ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r10, %r11}, [%r1];",
        "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r1], %r10;",
        "stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r1], {%r10};",
        "movmatrix.sync.aligned.m8n8.trans.b16 %r10, %r11;",
        "movmatrix.sync.aligned.m8n8.trans.b16 {%r10}, {%r11};",
        "movmatrix.sync.aligned.m8n8.b16 %r10, %r11;",
        "movmatrix.sync.aligned.m16n16.trans.b16 %r10, %r11;",
        "movmatrix.sync.aligned.m8n8.trans.b32 %r10, %r11;",
        "movmatrix.sync.aligned.m8n8.trans.b16 %f10, %f11;",
        "movmatrix.sync.aligned.m8n8.trans.b16 %rd2, %rd3;",
        "movmatrix.aligned.m8n8.trans.b16 %r10, %r11;",
    ]
    return out


WMMA_SHAPES = ["m16n16k16", "m32n8k16", "m8n32k16", "m16n16k8", "m8n8k4"]
WMMA_DIMS = {"m16n16k16": (16, 16, 16), "m32n8k16": (32, 8, 16), "m8n32k16": (8, 32, 16),
             "m16n16k8": (16, 16, 8), "m8n8k4": (8, 8, 4)}


def wmma_regs(frag, shape, ty):
    m, n, k = WMMA_DIMS[shape]
    rows, cols = {"a": (m, k), "b": (k, n), "c": (m, n)}[frag]
    if frag in "ab" and ty == "f16":
        return 8
    per = 1 if ty == "f64" else 32 // BITS[ty]
    return max(1, rows * cols // 32 // per)


def wmma_cases():
    out = []
    spaces = {"": "[%rd1]", ".global": "[%rd1]", ".shared": "[%rd1]", ".shared::cta": "[%rd1]", ".local": "[%rd1]"}
    for shape in WMMA_SHAPES:
        for frag, types in [("a", ["f16", "bf16", "tf32", "f64", "s8", "u8", "f32"]),
                            ("b", ["f16", "bf16", "tf32", "f64", "s8", "u8"]),
                            ("c", ["f16", "f32", "s32", "f64", "bf16"])]:
            for ty in types:
                n = wmma_regs(frag, shape, ty)
                v = vec(n, ty if ty in ("f64", "f32") else "b32", 10)
                for layout in ["row", "col"]:
                    out.append(f"wmma.load.{frag}.sync.aligned.{layout}.{shape}.{ty} {v}, [%rd1], %r3;")
                for space, addr in spaces.items():
                    out.append(f"wmma.load.{frag}.sync.aligned.row.{shape}{space}.{ty} {v}, {addr};")
                if frag == "c":
                    for layout in ["row", "col"]:
                        out.append(f"wmma.store.d.sync.aligned.{layout}.{shape}.global.{ty} [%rd1], {v}, 16;")
                out.append(f"wmma.load.{frag}.sync.aligned.row.{shape}.{ty} {vec(n + 1, ty if ty in ('f64', 'f32') else 'b32', 10)}, [%rd1];")
        for types in ["f32.f32", "f16.f16", "f32.f16", "f16.f32", "f32.bf16.bf16.f32", "f32.tf32.tf32.f32",
                      "f64.f64.f64.f64", "s32.s8.s8.s32", "s32.u8.u8.s32", "s32.s8.u8.s32", "f32.f16.f16.f32"]:
            t = types.split(".")
            d, c = t[0], t[-1]
            a = b = "f16" if len(t) == 2 else None
            if len(t) == 4:
                a, b = t[1], t[2]
            rd, ra, rb, rc = (wmma_regs("c", shape, d), wmma_regs("a", shape, a), wmma_regs("b", shape, b),
                              wmma_regs("c", shape, c))
            regs = f"{vec(rd, d if d in ('f32', 'f64') else 'b32', 10)}, {vec(ra, a if a == 'f64' else 'b32', 40)}, " \
                   f"{vec(rb, b if b == 'f64' else 'b32', 80)}, {vec(rc, c if c in ('f32', 'f64') else 'b32', 100)}"
            for layouts in ["row.col", "col.row", "row.row"]:
                out.append(f"wmma.mma.sync.aligned.{layouts}.{shape}.{types} {regs};")
            out.append(f"wmma.mma.sync.aligned.row.col.{shape}.{types}.satfinite {regs};")
            if d == "f64":
                out.append(f"wmma.mma.sync.aligned.row.col.{shape}.rn.{types} {regs};")
    return out


def cases():
    seen, out = set(), []
    for c in mma_cases() + move_cases() + wmma_cases():
        if c not in seen:
            seen.add(c)
            out.append(c)
    return out


def module(template, target, version, body):
    return template.replace("{version}", version).replace("{target}", target).replace("{body}", body)


# Messages of ptxas's late wmma lowering, which may name the wrong line in a batch.
LATE = ["formal parameter", "instruction 'mov'", "Unknown symbol '__cuda_"]

LINE = re.compile(r"line (\d+); (error|fatal)\s*: (.*)")


def assemble(ptxas, arch, src):
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(src)
        path = f.name
    try:
        r = subprocess.run([ptxas, f"-arch={arch}", path, "-o", os.devnull], capture_output=True, text=True)
    finally:
        os.unlink(path)
    errors = {}
    for m in LINE.finditer(r.stderr):
        errors.setdefault(int(m.group(1)), m.group(3))
    return r.returncode, errors, r.stderr


def verdicts(ptxas, template, target, version, arch, cs, messages):
    """'A' or 'R' for every case in cs."""
    first = template.split("\n").index("{body}") + 1  # 1-based line of the first case
    result = {}

    def run(idx):
        pending = list(idx)
        while pending:
            body = "\n".join(cs[i] for i in pending)
            rc, errors, stderr = assemble(ptxas, arch, module(template, target, version, body))
            if rc == 0:
                for i in pending:
                    result[i] = "A"
                return
            hit = {pending[ln - first]: msg for ln, msg in errors.items() if 0 <= ln - first < len(pending)}
            if not hit:
                if len(pending) == 1:
                    result[pending[0]] = "R"
                    messages[(pending[0], target, version)] = stderr.strip().splitlines()[0] if stderr.strip() else "?"
                    return
                half = len(pending) // 2
                run(pending[:half])
                run(pending[half:])
                return
            for i, msg in hit.items():
                result[i] = "R"
                messages[(i, target, version)] = msg
            pending = [i for i in pending if i not in hit]

    for start in range(0, len(cs), 400):
        run(range(start, min(start + 400, len(cs))))
    # ptxas lowers wmma late, into calls, and may blame a wmma line for another line's types
    # there (LATE: "Type of argument does not match formal parameter", "Arguments mismatch for
    # instruction 'mov'", "Unknown symbol '__cuda_sm7x_wmma_…'"): such verdicts are taken again
    # from the case assembled alone.
    # Batches of wmma cases also draw misplaced syntax errors ("Parsing error near ','" on a
    # line that assembles alone), so every wmma rejection is confirmed alone.
    again = [i for i in range(len(cs))
             if result[i] == "R" and (cs[i].startswith("wmma") or any(x in messages.get((i, target, version), "") for x in LATE))]

    def alone(i):
        return i, assemble(ptxas, arch, module(template, target, version, cs[i]))

    with ThreadPoolExecutor(3) as pool:
        for i, (rc, errors, stderr) in pool.map(alone, again):
            if rc == 0:
                result[i] = "A"
                del messages[(i, target, version)]
            else:
                messages[(i, target, version)] = next(iter(errors.values()), stderr.strip())
    return [result[i] for i in range(len(cs))]


def main():
    ptxas = sys.argv[1]
    msg_path = sys.argv[2] if len(sys.argv) > 2 else None
    template = open(os.path.join(HERE, "mma_kernel.ptx")).read()
    cs = cases()
    version = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    messages = {}
    cols = [verdicts(ptxas, template, t, v, a, cs, messages) for t, v, a in TARGETS]
    with open(os.path.join(HERE, "mma.tsv"), "w") as f:
        f.write(f"# ptxas per target: A accepts, R rejects; generated by gen_mma.py with {version}\n")
        f.write("# targets\t" + "\t".join(f"{t}/{v}" for t, v, _ in TARGETS) + "\n")
        for i, c in enumerate(cs):
            f.write(c + "\t" + "".join(col[i] for col in cols) + "\n")
    if msg_path:
        with open(msg_path, "w") as f:
            for (i, t, v), m in sorted(messages.items()):
                f.write(f"{t}/{v}\t{cs[i]}\t{m}\n")
    print(f"{len(cs)} cases, {len(cs) * len(TARGETS)} verdicts")


if __name__ == "__main__":
    main()
