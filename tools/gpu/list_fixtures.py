#!/usr/bin/env python3
"""Lists every kernel fixture launch of tests/fixtures as tools/gpu/replay-fixtures.sh replays
it, one tab-separated line each (python3 standard library only):

  run  FIXTURE VARIANT TARGET PTX DUMPS ARG...   (ARG...: `ptxemu run PTX` arguments)
  skip FIXTURE VARIANT REASON

FIXTURE is the folder under tests/fixtures, VARIANT names the PTX build, TARGET is the PTX
file's `.target` (the script skips targets the GPU cannot run), DUMPS is `ARG=EXPECTED,...`
(paths from the repository root; `-` for none). The PTX of a fixture is found as the tests
find it: the manifest's `variants` (VARIANT.ptx), its `ptx` list (in the folder) or string
(from the suite's root; Triton's sm80 builds are also replayed as sm90), else the folder's
own .ptx files, else the parent folder's .ptx files that define the kernel.

Usage: list_fixtures.py [REPO_ROOT] > tools/gpu/fixtures.tsv
"""

import json
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
FIX = os.path.join(ROOT, "tests", "fixtures")


def rel(p):
    return os.path.relpath(p, ROOT)


def target(ptx):
    with open(ptx, encoding="utf-8", errors="replace") as f:
        m = re.search(r"^\s*\.target\s+(sm_\w+)", f.read(), re.M)
    return m.group(1) if m else "unknown"


def defines(ptx, kernel):
    with open(ptx, encoding="utf-8", errors="replace") as f:
        return re.search(r"\.entry\s+" + re.escape(kernel) + r"\b", f.read()) is not None


def ptx_files(d, m):
    """(variant, path) pairs for the manifest `m` of folder `d`."""
    if "variants" in m:
        return [(v, os.path.join(d, v + ".ptx")) for v in m["variants"]]
    p = m.get("ptx")
    if isinstance(p, list):
        return [(os.path.splitext(f)[0], os.path.join(d, f)) for f in p]
    if isinstance(p, str):
        suite = os.path.dirname(os.path.dirname(d))
        paths = [p] + ([p.replace("sm80", "sm90")] if "sm80" in p else [])
        return [(os.path.basename(os.path.dirname(q)) or os.path.splitext(q)[0], os.path.join(suite, q))
                for q in paths]
    own = sorted(f for f in os.listdir(d) if f.endswith(".ptx"))
    if own:
        return [(os.path.splitext(f)[0], os.path.join(d, f)) for f in own]
    up = os.path.dirname(d)
    kernel = m.get("kernel", "")
    return [(os.path.splitext(f)[0], os.path.join(up, f)) for f in sorted(os.listdir(up))
            if f.endswith(".ptx") and defines(os.path.join(up, f), kernel)]


def launch_args(d, m):
    out = ["--grid", str(m["grid"])]
    for key, opt in (("kernel", "--kernel"), ("block", "--block"), ("shared_bytes", "--shared-bytes"),
                     ("cluster_dims", "--cluster")):
        if key in m:
            out += [opt, str(m[key])]
    out += [str(f) for f in m.get("flags", [])]
    for a in m["args"]:
        out += ["--arg", a.replace("file=", "file=" + rel(d) + "/")]
    return out


def main():
    lines = []
    for dirpath, _dirs, files in sorted(os.walk(FIX)):
        if "manifest.json" not in files:
            continue
        name = os.path.relpath(dirpath, FIX)
        with open(os.path.join(dirpath, "manifest.json")) as f:
            m = json.load(f)
        if "entries" in m:
            lines.append(["skip", name, "-", "race corpus (verdicts, not outputs)"])
            continue
        found = ptx_files(dirpath, m)
        if not found:
            lines.append(["skip", name, "-", "no PTX file found"])
        for variant, ptx in found:
            if not os.path.exists(ptx):
                lines.append(["skip", name, variant, "missing " + rel(ptx)])
            elif m.get("exit", 0) != 0:
                lines.append(["skip", name, variant, "expects exit %d (a fault or refusal)" % m["exit"]])
            else:
                dumps = ",".join("%d=%s" % (d["arg"], rel(os.path.join(dirpath, d["expected"])))
                                 for d in m.get("dumps", [])) or "-"
                args = launch_args(dirpath, m)
                if any("\t" in a for a in args):
                    lines.append(["skip", name, variant, "an argument holds a tab"])
                    continue
                lines.append(["run", name, variant, target(ptx), rel(ptx), dumps] + args)
    for line in lines:
        print("\t".join(line))


main()
