#!/usr/bin/env python3
"""Runs ptxemu on every launch of this recording and prints, for each dump where ptxemu differs
from the H100, a known_differences.tsv row without its cause column: fixture, variant, arg,
dtype, differing elements, elements, max ulps (f32, and f16 for Triton's u16 buffers; raw
bytes otherwise, `-`), or `no-dump` where the GPU made none. Needs numpy.

  python3 litmus/hardware/nvidia-h100/replay/measure.py target/release/ptxemu  (from the root)
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def rows(name):
    with open(os.path.join(HERE, name)) as f:
        return [l.rstrip("\n").split("\t") for l in f if l.strip() and not l.startswith("#")]


def ordered(x, bits):
    x = x.astype(np.int64)
    s = 1 << (bits - 1)
    return np.where(x >= s, -(x - s), x)


def main():
    emu = os.path.abspath(sys.argv[1])
    launches = {(r[1], r[2]): r for r in rows("launches.tsv") if r[0] == "run"}
    recorded = {}
    for r in rows("summary.tsv")[1:]:
        if r[2] != "-":
            recorded.setdefault((r[0], r[1]), []).append(r)
    tmp = tempfile.mkdtemp()
    for key, recs in sorted(recorded.items()):
        f = launches[key]
        dumps = dict(s.split("=", 1) for s in f[5].split(","))
        args = [a for i, a in enumerate(f[6:]) if i > 0 and f[6:][i - 1] == "--arg"]
        cmd = [emu, "run", f[4]] + f[6:]
        for r in recs:
            cmd += ["--dump", f"{r[2]}={tmp}/arg{r[2]}.bin"]
        subprocess.run(cmd, capture_output=True)
        for r in recs:
            if r[3] == "-":
                print("\t".join(r[:3] + ["-", "no-dump", "-", "-"]))
                continue
            gpu_path = dumps[r[2]] if r[4] == "yes" else os.path.join(HERE, "dumps", r[3] + ".bin")
            g = open(gpu_path, "rb").read()
            e = open(f"{tmp}/arg{r[2]}.bin", "rb").read()
            os.remove(f"{tmp}/arg{r[2]}.bin")
            if g == e:
                continue
            t = args[int(r[2])].split("[")[0].split(":")[0]
            if t == "f32" or (t == "u16" and r[0].startswith("triton/")):
                bits = 32 if t == "f32" else 16
                w = np.uint32 if bits == 32 else np.uint16
                G, E = np.frombuffer(g, w), np.frombuffer(e, w)
                u = np.abs(ordered(G, bits) - ordered(E, bits))
                dt, n, m = ("f32" if bits == 32 else "f16"), int((u > 0).sum()), str(int(u.max()))
            else:
                G, E = np.frombuffer(g, np.uint8), np.frombuffer(e, np.uint8)
                dt, n, m = "u8", int((G != E).sum()), "-"
            print("\t".join(r[:3] + [dt, str(n), str(len(G)), m]))


if __name__ == "__main__":
    main()
