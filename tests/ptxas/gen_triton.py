#!/usr/bin/env python3
"""Generates one-instruction cases of the syntax Triton 3.x emits that ptxemu's front end had
to learn (one-element brace vectors as scalar operands, packed .f32x2 arithmetic, redux.sync
including .f32 with .abs/.NaN, three-input min/max, elect.sync, griddepcontrol, setmaxnreg,
two-source packing cvt, non-bulk cp.async and mbarrier), asks NVIDIA's ptxas which it accepts at several targets, and records
the verdicts in triton.tsv.

Usage: gen_triton.py PTXAS [MESSAGES]

Each case is one line placed in the kernel of triton_kernel.ptx and assembled alone (there are
few enough), so every verdict is ptxas's own for that line.
"""

import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))

TARGETS = [
    ("sm_80", "7.4", "sm_80"),
    ("sm_90", "8.7", "sm_90"),
    ("sm_90a", "8.7", "sm_90a"),
    ("sm_100", "8.8", "sm_100"),
    ("sm_100a", "8.6", "sm_100a"),
    ("sm_100a", "8.8", "sm_100a"),
    ("sm_120a", "8.8", "sm_120a"),
]


def cases():
    out = []
    add = out.append
    # one-element brace vectors
    for ty, reg in [("b32", "%r3"), ("b16", "%h3"), ("b8", "%h3"), ("b64", "%rd3"),
                    ("f32", "%f3"), ("u32", "%rd3"), ("b64", "%r3"), ("f64", "%fd3")]:
        add(f"ld.global.{ty} {{{reg}}}, [%rd1];")
        add(f"st.global.{ty} [%rd1], {{{reg}}};")
        add(f"ld.global.{ty} {{ {reg} }}, [ %rd1 + 0 ];")
    for line in ["ld.shared.b32 {%r3}, [%r2];", "st.shared.b32 [%r2], {%r3};",
                 "ld.global.nc.b32 {%r3}, [%rd1];", "ld.global.v2.b32 {%r3}, [%rd1];",
                 "ld.global.b32 {_}, [%rd1];", "st.global.b32 [%rd1], {5};",
                 "st.global.b32 [%rd1], {_};", "ld.global.b32 {%r3, %r4}, [%rd1];",
                 "ld.global.b32 {5}, [%rd1];", "@%p1 ld.global.b32 {%r3}, [%rd1];",
                 "ld.global.L1::evict_last.b32 {%r3}, [%rd1];",
                 "st.global.v2.b32 [%rd1], {%r3};",
                 "atom.global.add.u32 {%r3}, [%rd1], %r4;", "add.s32 {%r3}, %r4, %r5;",
                 "mov.b32 {%r3}, %r4;", "ld.volatile.global.b32 {%r3}, [%rd1];",
                 "ld.relaxed.gpu.global.b32 {%r3}, [%rd1];"]:
        add(line)
    # packed f32x2
    for op, n in [("add", 2), ("sub", 2), ("mul", 2), ("fma", 3)]:
        for rnd in ["", ".rn", ".rz", ".rm", ".rp"]:
            for ftz in ["", ".ftz"]:
                for sat in ["", ".sat"]:
                    srcs = ", ".join(f"%rd{4 + k}" for k in range(n))
                    add(f"{op}{rnd}{ftz}{sat}.f32x2 %rd3, {srcs};")
        srcs = ", ".join(["%f4"] * n)
        add(f"{op}.rn.f32x2 %f3, {srcs};")
        add(f"{op}.rn.f32x2 %rd3, {', '.join(['%rd4'] * (n - 1) + ['0d3FF0000000000000'])};")
        add(f"{op}.rn.f32x2 %rd3, {', '.join(['%fd4'] * n)};")
    for op in ["min", "max", "neg", "abs", "div.rn", "mad.rn"]:
        n = {"neg": 1, "abs": 1, "mad.rn": 3}.get(op, 2)
        add(f"{op}.f32x2 %rd3, {', '.join(['%rd4'] * n)};")
    # redux.sync
    for op in ["add", "min", "max", "and", "or", "xor"]:
        for ty, reg in [("u32", "%r"), ("s32", "%r"), ("b32", "%r"), ("f32", "%f"),
                        ("u64", "%rd")]:
            add(f"redux.sync.{op}.{ty} {reg}3, {reg}4, -1;")
    for op in ["min", "max"]:
        for flags in [".abs", ".NaN", ".abs.NaN", ".NaN.abs"]:
            add(f"redux.sync.{op}{flags}.f32 %f3, %f4, -1;")
            add(f"redux.sync.{op}.f32{flags} %f3, %f4, -1;")
            add(f"redux.sync.{op}{flags}.s32 %r3, %r4, -1;")
        add(f"redux.sync.{op}.f32 %r3, %r4, %r5;")
        add(f"redux.sync.{op}.f32 %f3, %f4, 0xffff;")
        add(f"redux.sync.{op}.f32 %f3, 1.0, -1;")
        add(f"redux.sync.{op}.ftz.f32 %f3, %f4, -1;")
        add(f"redux.{op}.f32 %f3, %f4, -1;")
        add(f"redux.sync.{op}.f32 %f3, %f4;")
    # three-input min/max
    for op in ["min", "max"]:
        for mods in ["", ".NaN", ".ftz", ".ftz.NaN", ".xorsign.abs", ".relu"]:
            add(f"{op}{mods}.f32 %f3, %f4, %f5, %f6;")
        for ty, r in [("f64", "%fd"), ("s32", "%r"), ("u32", "%r"), ("f16x2", "%r"),
                      ("bf16x2", "%r"), ("f16", "%h")]:
            add(f"{op}.{ty} {r}3, {r}4, {r}5, {r}6;")
        add(f"{op}.f32 %f3, %f4, %f5, 1.0;")
        add(f"{op}.f32 %f3, %f4, %f5, %f6, %f7;")
    # elect.sync
    for line in ["elect.sync %r3|%p1, -1;", "elect.sync _|%p1, -1;", "elect.sync %r3, -1;",
                 "elect.sync %r3|%p1, %r4;", "elect.sync %r3|%p1, 0xff;", "elect %r3|%p1, -1;",
                 "elect.sync.aligned %r3|%p1, -1;", "elect.sync %rd3|%p1, -1;",
                 "@%p2 elect.sync %r3|%p1, -1;", "elect.sync %p1|%r3, -1;"]:
        add(line)
    # griddepcontrol
    for line in ["griddepcontrol.wait;", "griddepcontrol.launch_dependents;",
                 "griddepcontrol;", "griddepcontrol.wait %r3;", "griddepcontrol.sync;",
                 "@%p1 griddepcontrol.wait;"]:
        add(line)
    # setmaxnreg
    for act in ["inc", "dec"]:
        for n in ["24", "32", "232", "240", "256", "8", "25", "264", "%r3"]:
            add(f"setmaxnreg.{act}.sync.aligned.u32 {n};")
        add(f"setmaxnreg.{act}.u32 240;")
        add(f"setmaxnreg.{act}.sync.aligned.s32 240;")
        add(f"setmaxnreg.{act}.sync.aligned.u32 240, 8;")
    add("setmaxnreg.sync.aligned.u32 240;")
    # two-source packing cvt
    for d in ["f16x2", "bf16x2"]:
        for mods in [".rn", ".rz", ".rn.relu", ".rn.satfinite", ".rn.relu.satfinite", ""]:
            add(f"cvt{mods}.{d}.f32 %r3, %f4, %f5;")
        add(f"cvt.rn.{d}.f32 %r3, %f4;")
        add(f"cvt.rn.{d}.f32 %r3, %f4, %f5, %f6;")
        add(f"cvt.rn.{d}.f32 %rd3, %f4, %f5;")
    # cp.async (non-bulk) and mbarrier
    for cop, size in [("ca", "4"), ("ca", "8"), ("ca", "16"), ("cg", "16"), ("cg", "8"),
                      ("ca", "0x10"), ("ca", "2"), ("ca", "32")]:
        add(f"cp.async.{cop}.shared.global [%r2], [%rd1], {size};")
    for tail in [", 4", ", %r3", ", %p1", ", 20", ", %rd3", ", !%p1"]:
        add(f"cp.async.ca.shared.global [%r2], [%rd1], 16{tail};")
    for quals in [".shared::cta.global", ".global.shared", ".shared.global.L2::128B",
                  ".shared.global.L2::cache_hint", ".shared::cluster.global", ""]:
        extra = ", %rd4" if "cache_hint" in quals else ""
        add(f"cp.async.ca{quals} [%r2], [%rd1], 16{extra};")
    add("cp.async.ca.shared.global [%rd2], [%rd1], 16;")
    add("cp.async.ca.shared.global [%r2], [%r3], 16;")
    add("cp.async.shared.global [%r2], [%rd1], 16;")
    for line in ["cp.async.commit_group;", "cp.async.wait_group 0;", "cp.async.wait_group 3;",
                 "cp.async.wait_group %r3;", "cp.async.wait_all;", "cp.async.wait_group;",
                 "cp.async.mbarrier.arrive.b64 [%rd2];",
                 "cp.async.mbarrier.arrive.noinc.b64 [%rd2];",
                 "cp.async.mbarrier.arrive.shared.b64 [%r2];",
                 "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r2];",
                 "cp.async.mbarrier.arrive.shared.b32 [%r2];"]:
        add(line)
    for sp, a in [("", "[%rd2]"), (".shared", "[%r2]"), (".shared::cta", "[%r2]"),
                  (".shared::cta", "[bar]")]:
        add(f"mbarrier.init{sp}.b64 {a}, %r3;")
        add(f"mbarrier.init{sp}.b64 {a}, 32;")
        add(f"mbarrier.inval{sp}.b64 {a};")
        add(f"mbarrier.arrive{sp}.b64 %rd3, {a};")
        add(f"mbarrier.arrive{sp}.b64 _, {a};")
        add(f"mbarrier.arrive{sp}.b64 %rd3, {a}, %r3;")
        add(f"mbarrier.arrive_drop{sp}.b64 %rd3, {a};")
        add(f"mbarrier.arrive.expect_tx{sp}.b64 %rd3, {a}, 128;")
        add(f"mbarrier.arrive.noComplete{sp}.b64 %rd3, {a}, 1;")
        add(f"mbarrier.expect_tx{sp}.b64 {a}, 128;")
        add(f"mbarrier.complete_tx{sp}.b64 {a}, 128;")
        add(f"mbarrier.test_wait{sp}.b64 %p1, {a}, %rd3;")
        add(f"mbarrier.test_wait.parity{sp}.b64 %p1, {a}, %r3;")
        add(f"mbarrier.try_wait{sp}.b64 %p1, {a}, %rd3;")
        add(f"mbarrier.try_wait.parity{sp}.b64 %p1, {a}, %r3;")
        add(f"mbarrier.try_wait.parity{sp}.b64 %p1, {a}, %r3, 1000;")
    for line in ["mbarrier.pending_count.b64 %r3, %rd3;", "mbarrier.init.shared.b32 [%r2], 1;",
                 "mbarrier.arrive.release.cta.shared::cta.b64 %rd3, [%r2];",
                 "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p1, [%r2], %r3;",
                 "mbarrier.arrive.relaxed.cta.shared::cta.b64 %rd3, [%r2];",
                 "mbarrier.arrive.release.cluster.shared::cta.b64 %rd3, [%r2];",
                 "mbarrier.test_wait.parity.shared.b64 %r4, [%r2], %r3;",
                 "mbarrier.arrive.shared.b64 %r4, [%r2];",
                 "mbarrier.init.shared.b64 [%r2];", "mbarrier.bogus.shared.b64 [%r2];"]:
        add(line)
    return out


def run(ptxas, target, version, arch, case):
    with open(os.path.join(HERE, "triton_kernel.ptx")) as f:
        text = f.read()
    text = text.replace("{version}", version).replace("{target}", target).replace("{body}", case)
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        r = subprocess.run([ptxas, f"-arch={arch}", path, "-o", os.devnull],
                           capture_output=True, text=True)
    finally:
        os.unlink(path)
    if r.returncode == 0:
        return "A", ""
    if r.returncode < 0 or "error" not in r.stderr:
        return "C", r.stderr.strip()
    return "R", r.stderr.strip().splitlines()[0]


def main():
    ptxas = sys.argv[1]
    messages = sys.argv[2] if len(sys.argv) > 2 else None
    cs = cases()
    version = subprocess.run([ptxas, "--version"], capture_output=True,
                             text=True).stdout.strip().splitlines()[-1]
    jobs = [(t, c) for c in cs for t in TARGETS]
    with ThreadPoolExecutor(4) as ex:
        results = list(ex.map(lambda j: run(ptxas, *j[0], j[1]), jobs))
    lines = [f"# ptxas per target: A accepts, R rejects, C crashes; generated by gen_triton.py "
             f"with {version}",
             "# targets\t" + "\t".join(f"{t}/{v}" for t, v, _ in TARGETS)]
    msgs = []
    for k, c in enumerate(cs):
        row = results[k * len(TARGETS):(k + 1) * len(TARGETS)]
        lines.append(c + "\t" + "".join(v for v, _ in row))
        for (t, v, _), (verdict, m) in zip(TARGETS, row):
            if verdict != "A":
                msgs.append(f"{t}/{v}\t{c}\t{m}")
    with open(os.path.join(HERE, "triton.tsv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    if messages:
        with open(messages, "w") as f:
            f.write("\n".join(msgs) + "\n")
    print(f"{len(cs)} cases x {len(TARGETS)} targets")


if __name__ == "__main__":
    main()
