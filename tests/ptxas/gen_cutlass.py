#!/usr/bin/env python3
"""Generates one-instruction cases of the instructions CUTLASS 4.x kernels emit that ptxemu
had to learn (every `prefetch`/`prefetchu` form, `clusterlaunchcontrol.try_cancel` and
`query_cancel`, and the `.cta_group` forms of `cp.async.bulk.tensor`), asks NVIDIA's ptxas
which it accepts at several targets, and records the verdicts in cutlass.tsv.

Usage: gen_cutlass.py PTXAS [MESSAGES]

Each case is one line placed in the kernel of cutlass_kernel.ptx (`{b128regs}` and
`{b128init}` are filled from PTX ISA 8.3 on, where `.b128` registers exist) and assembled
alone, so every verdict is ptxas's own for that line.
"""

import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))

TARGETS = [
    ("sm_80", "7.8", "sm_80"),
    ("sm_90", "8.7", "sm_90"),
    ("sm_90a", "8.0", "sm_90a"),
    ("sm_90a", "8.7", "sm_90a"),
    ("sm_100", "8.8", "sm_100"),
    ("sm_100a", "8.6", "sm_100a"),
    ("sm_100a", "8.8", "sm_100a"),
    ("sm_100f", "8.8", "sm_100f"),
    ("sm_120a", "8.8", "sm_120a"),
]


def prefetch_cases(add):
    addrs = ["[%rd1]", "[%rd1+8]", "[%r4]", "[tm]", "[%rd2]", "[gmap]", "[cmap]", "[tile]", "8"]
    spaces = ["", ".global", ".local", ".shared", ".shared::cta", ".const", ".param",
              ".param::entry", ".shared::cluster"]
    levels = [".L1", ".L2", ".L2::evict_last", ".L2::evict_normal", ".tensormap",
              ".L2::evict_first", ".L1::evict_last", ".L3", ""]
    for op in ["prefetch", "prefetchu"]:
        for sp in spaces:
            for lv in levels:
                for a in ["[%rd1]", "[tm]"] if lv != ".tensormap" else addrs:
                    add(f"{op}{sp}{lv} {a};")
    # Qualifier order, operand counts and kinds, guards, the tensor map's generic address.
    for line in ["prefetch.L2.global [%rd1];", "prefetch.tensormap.param [tm];",
                 "prefetch.tensormap.const [cmap];", "prefetch.L2 [%rd1], %r3;",
                 "prefetch.L2 %rd1;", "prefetch.L2;", "@%p1 prefetch.L2 [%rd1];",
                 "@!%p1 prefetch.tensormap [%rd7];", "prefetch.tensormap [%rd7];",
                 "prefetch.tensormap [%rd7+64];", "prefetch.param.tensormap [%rd2];",
                 "prefetch.const.tensormap [%rd2];", "prefetch.global.tensormap [gmap];",
                 "prefetch.tensormap.L2 [%rd1];", "prefetch.L2.L2 [%rd1];",
                 "prefetch.global.L2::evict_last.L2 [%rd1];", "prefetchu.L1.global [%rd1];",
                 "prefetchu.L2 [%rd1];", "prefetch.global.L2::evict_normal [%rd1+16];",
                 "prefetch.tensormap [%r2];", "prefetch.L1 [%rd1+-8];",
                 "prefetch.global.L2::evict_last [gmap];", "prefetch.const.L2 [cmap];"]:
        add(line)


def clc_cases(add):
    base = "clusterlaunchcontrol.try_cancel"
    mb = ".mbarrier::complete_tx::bytes"
    mc = ".multicast::cluster::all"
    for sp, ops in [(".shared::cta", "[%r2], [%r3]"), (".shared::cta", "[resp], [bar]"),
                    (".shared::cta", "[%rd3], [%rd4]"), ("", "[%rd5], [%rd6]"),
                    ("", "[%r2], [%r3]"), (".shared", "[%r2], [%r3]"),
                    (".shared::cluster", "[%r2], [%r3]"), (".global", "[%rd1], [%rd1]")]:
        for multi in ["", mc]:
            add(f"{base}.async{sp}{mb}{multi}.b128 {ops};")
    for line in [f"{base}{mb}.b128 [%r2], [%r3];",
                 f"{base}.async.shared::cta.b128 [%r2], [%r3];",
                 f"{base}.async.shared::cta{mb}.b64 [%r2], [%r3];",
                 f"{base}.async.shared::cta{mb} [%r2], [%r3];",
                 f"{base}.async.shared::cta{mb}.b128 [%r2];",
                 f"{base}.async.shared::cta{mb}.b128 [%r2], [%r3], %r5;",
                 f"{base}.async.shared::cta{mb}.b128 %r2, [%r3];",
                 f"{base}.async.shared::cta{mb}.b128 [%r2+16], [%r3];",
                 f"{base}.shared::cta.async{mb}.b128 [%r2], [%r3];",
                 f"{base}.async{mb}.shared::cta.b128 [%r2], [%r3];",
                 f"{base}.async.shared::cta{mc}{mb}.b128 [%r2], [%r3];",
                 f"{base}.async.shared::cta{mb}.multicast::cluster.b128 [%r2], [%r3];",
                 f"@%p1 {base}.async.shared::cta{mb}.b128 [%r2], [%r3];",
                 f"{base}.async.shared::cta{mb}.b128.b128 [%r2], [%r3];",
                 "clusterlaunchcontrol.try_cancel.async.b128 [%rd5], [%rd6];"]:
        add(line)
    q = "clusterlaunchcontrol.query_cancel"
    for line in [f"{q}.is_canceled.pred.b128 %p1, %q1;",
                 f"{q}.is_canceled.b128 %p1, %q1;",
                 f"{q}.is_canceled.pred.b128 %r3, %q1;",
                 f"{q}.is_canceled.pred.b64 %p1, %rd1;",
                 f"{q}.is_canceled.pred.b128 %p1, %rd1;",
                 f"{q}.is_canceled.pred.b128 %p1, [%r2];",
                 f"{q}.is_canceled.pred.b128 %p1;",
                 f"{q}.pred.is_canceled.b128 %p1, %q1;",
                 f"{q}.is_canceled.b128.pred %p1, %q1;",
                 f"@%p2 {q}.is_canceled.pred.b128 %p1, %q1;",
                 f"{q}.get_first_ctaid.v4.b32.b128 {{%r10, %r11, %r12, _}}, %q1;",
                 f"{q}.get_first_ctaid.v4.b32.b128 {{%r10, %r11, %r12, %r13}}, %q1;",
                 f"{q}.get_first_ctaid.v4.b32.b128 {{%r10, _, _, _}}, %q1;",
                 f"{q}.get_first_ctaid.v4.b32.b128 {{_, _, _, _}}, %q1;",
                 f"{q}.get_first_ctaid.v4.b32.b128 {{%r10, %r11, %r12}}, %q1;",
                 f"{q}.get_first_ctaid.v4.b32.b128 {{%rd10, %rd11, %rd12, _}}, %q1;",
                 f"{q}.get_first_ctaid.v4.b32.b128 %r10, %q1;",
                 f"{q}.get_first_ctaid.v2.b32.b128 {{%r10, %r11}}, %q1;",
                 f"{q}.get_first_ctaid.v4.u32.b128 {{%r10, %r11, %r12, _}}, %q1;",
                 f"{q}.get_first_ctaid.b32.b128 %r10, %q1;",
                 f"{q}.get_first_ctaid.b32.b128 {{%r10, %r11, %r12, _}}, %q1;",
                 f"{q}.get_first_ctaid::w.b32.b128 %r10, %q1;",
                 f"{q}.get_first_ctaid::x.b64.b128 %rd10, %q1;",
                 f"{q}.get_first_ctaid::x.b32.b128 %rd10, %q1;",
                 f"{q}.get_first_ctaid::x.b32.b128 %r10, %rd1;",
                 f"{q}.get_first_ctaid::x.v4.b32.b128 {{%r10, %r11, %r12, _}}, %q1;",
                 f"{q}.get_first_ctaid::x.b32.b128 %r10, %q1, %q1;",
                 f"@%p1 {q}.get_first_ctaid::z.b32.b128 %r10, %q1;",
                 f"{q}.b32.b128.get_first_ctaid::x %r10, %q1;",
                 f"{q}.get_first_ctaid::x.b128.b32 %r10, %q1;",
                 f"{q}.is_canceled.get_first_ctaid::x.pred.b128 %p1, %q1;",
                 f"{q}.b128 %p1, %q1;"]:
        add(line)
    for d in "xyz":
        add(f"{q}.get_first_ctaid::{d}.b32.b128 %r10, %q1;")
        add(f"{q}.get_first_ctaid::{d}.u32.b128 %r10, %q1;")


def cta_group_cases(add):
    t = "cp.async.bulk.tensor"
    mb = ".mbarrier::complete_tx::bytes"
    # The tensor map by its generic address (%rd7), as CUTLASS passes it; "" is the control.
    for group in ["", ".cta_group::1", ".cta_group::2", ".cta_group::3", ".cta_group::0",
                  ".cta_group"]:
        for dim, coords in [("1d", "{%r5}"), ("2d", "{%r5, %r6}"),
                            ("5d", "{%r5, %r6, %r5, %r6, %r5}")]:
            for dst in [".shared::cluster", ".shared::cta"]:
                add(f"{t}.{dim}{dst}.global{mb}{group} [%r4], [%rd7, {coords}], [%r3];")
            # CUTLASS's order: the group right after the dimension.
            add(f"{t}.{dim}{group}.shared::cluster.global{mb} [%r4], [%rd7, {coords}], [%r3];")
        add(f"{t}.2d{group}.shared::cluster.global{mb}.L2::cache_hint "
            "[%r4], [%rd7, {%r5, %r6}], [%r3], %rd1;")
        add(f"{t}.2d{group}.shared::cluster.global{mb}.multicast::cluster.L2::cache_hint "
            "[%r4], [%rd7, {%r5, %r6}], [%r3], %h1, %rd1;")
        add(f"{t}.2d.shared::cluster.global{mb}.multicast::cluster{group} "
            "[%r4], [%rd7, {%r5, %r6}], [%r3], %h1;")
        add(f"{t}.3d.im2col{group}.shared::cluster.global{mb} "
            "[%r4], [%rd7, {%r5, %r6, %r5}], [%r3], {%h1};")
        add(f"{t}.2d.tile{group}.shared::cluster.global{mb} [%r4], [%rd7, {{%r5, %r6}}], [%r3];")
        add(f"{t}.2d.global.shared::cta.bulk_group{group} [%rd7, {{%r5, %r6}}], [%r4];")
        add(f"cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group{group} "
            "[%rd7, {%r5, %r6}], [%r4];")
        add(f"cp.async.bulk.shared::cluster.global{mb}{group} [%r4], [%rd1], 16, [%r3];")
        add(f"cp.async.bulk.prefetch.tensor.2d.L2.global{group} [%rd7, {{%r5, %r6}}];")
    for line in [f"{t}.2d.cta_group::2.cta_group::2.shared::cluster.global{mb} "
                 "[%r4], [%rd7, {%r5, %r6}], [%r3];",
                 f"{t}.2d.cta_group::1.cta_group::2.shared::cluster.global{mb} "
                 "[%r4], [%rd7, {%r5, %r6}], [%r3];",
                 f"@%p1 {t}.2d.cta_group::2.shared::cluster.global{mb} "
                 "[%r4], [%rd7, {%r5, %r6}], [%r3];",
                 f"{t}.2d.cta_group::2.shared::cluster.global{mb} "
                 "[%rd3], [%rd2, {%r5, %r6}], [%rd4];",
                 f"{t}.2d.cta_group::2.shared::cluster.global{mb} "
                 "[%r4], [tm, {%r5, %r6}], [%r3];",
                 f"{t}.2d.cta_group::2.shared::cta.global{mb} "
                 "[%r4], [%rd7, {%r5, %r6}], [%r3];",
                 f"{t}.2d.cta_group::2.shared::cluster.global{mb} "
                 "[%rd5], [%rd7, {%r5, %r6}], [%rd6];",
                 f"{t}.2d.cta_group::2.shared::cluster.global{mb} "
                 "[tile], [%rd7, {%r5, %r6}], [bar];"]:
        add(line)


def cases():
    out = []
    prefetch_cases(out.append)
    clc_cases(out.append)
    cta_group_cases(out.append)
    return list(dict.fromkeys(out))


def module(target, version, case):
    with open(os.path.join(HERE, "cutlass_kernel.ptx")) as f:
        text = f.read()
    major, minor = (int(v) for v in version.split("."))
    b128 = (major, minor) >= (8, 3)
    return (text.replace("{version}", version).replace("{target}", target)
            .replace("{b128regs}", ".reg .b128 %q<30>;" if b128 else "")
            .replace("{b128init}", "ld.shared.b128 %q1, [%r2];" if b128 else "")
            .replace("{body}", case))


def run(ptxas, target, version, arch, case):
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(module(target, version, case))
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
    # The template alone must assemble everywhere, or every verdict would be a rejection.
    for t in TARGETS:
        v, m = run(ptxas, *t, "")
        assert v == "A", (t, m)
    jobs = [(t, c) for c in cs for t in TARGETS]
    with ThreadPoolExecutor(2) as ex:
        results = list(ex.map(lambda j: run(ptxas, *j[0], j[1]), jobs))
    lines = [f"# ptxas per target: A accepts, R rejects, C crashes; generated by gen_cutlass.py "
             f"with {version}",
             "# targets\t" + "\t".join(f"{t}/{v}" for t, v, _ in TARGETS)]
    msgs = []
    for k, c in enumerate(cs):
        row = results[k * len(TARGETS):(k + 1) * len(TARGETS)]
        lines.append(c + "\t" + "".join(v for v, _ in row))
        for (t, v, _), (verdict, m) in zip(TARGETS, row):
            if verdict != "A":
                msgs.append(f"{t}/{v}\t{c}\t{m}")
    with open(os.path.join(HERE, "cutlass.tsv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    if messages:
        with open(messages, "w") as f:
            f.write("\n".join(msgs) + "\n")
    print(f"{len(cs)} cases x {len(TARGETS)} targets")


if __name__ == "__main__":
    main()
