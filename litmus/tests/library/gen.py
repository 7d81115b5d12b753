#!/usr/bin/env python3
"""Writes the classic litmus shapes of ptxemu's own library (one file per variant) and
expected.csv (1: the condition holds under ptx-v7.5), whose values were worked out by hand
from the PTX memory model; the golden outputs (*.expected) are written by the test suite
(UPDATE_GOLDEN=1 cargo test -p litmus --test library)."""

tests = []

def t(name, expl, threads, rows, cond, holds, init="x=0; y=0;"):
    tests.append((name, expl, threads, rows, cond, holds, init))

SAME_CTA = ["P0@cta 0,gpu 0", "P1@cta 0,gpu 0"]
DIFF_CTA = ["P0@cta 0,gpu 0", "P1@cta 1,gpu 0"]
DIFF_GPU = ["P0@cta 0,gpu 0", "P1@cta 0,gpu 1"]

# MP: message passing.
mp_cond = "exists (P1:r0 == 1 /\\ P1:r1 == 0)"
t("MP+weak", "Weak accesses give no ordering: the stale read is allowed.", DIFF_CTA,
  [["st.weak x, 1", "ld.weak r0, y"], ["st.weak y, 1", "ld.weak r1, x"]], mp_cond, 1)
t("MP+rlx", "Relaxed accesses are strong but do not synchronise: allowed.", DIFF_CTA,
  [["st.relaxed.gpu x, 1", "ld.relaxed.gpu r0, y"], ["st.relaxed.gpu y, 1", "ld.relaxed.gpu r1, x"]], mp_cond, 1)
t("MP+rel+acq-gpu", "Release/acquire at gpu scope across CTAs synchronises: forbidden.", DIFF_CTA,
  [["st.weak x, 1", "ld.acquire.gpu r0, y"], ["st.release.gpu y, 1", "ld.weak r1, x"]], mp_cond, 0)
t("MP+rel+acq-cta-diff-cta", "cta scope does not reach another CTA: allowed.", DIFF_CTA,
  [["st.weak x, 1", "ld.acquire.cta r0, y"], ["st.release.cta y, 1", "ld.weak r1, x"]], mp_cond, 1)
t("MP+rel+acq-cta-same-cta", "cta scope is enough inside one CTA: forbidden.", SAME_CTA,
  [["st.weak x, 1", "ld.acquire.cta r0, y"], ["st.release.cta y, 1", "ld.weak r1, x"]], mp_cond, 0)
t("MP+rel+acq-gpu-diff-gpu", "gpu scope does not reach another GPU: allowed.", DIFF_GPU,
  [["st.weak x, 1", "ld.acquire.gpu r0, y"], ["st.release.gpu y, 1", "ld.weak r1, x"]], mp_cond, 1)
t("MP+rel+acq-sys-diff-gpu", "sys scope reaches every GPU: forbidden.", DIFF_GPU,
  [["st.weak x, 1", "ld.acquire.sys r0, y"], ["st.release.sys y, 1", "ld.weak r1, x"]], mp_cond, 0)
t("MP+fences", "Relaxed flag accesses with acq_rel fences form release and acquire patterns: forbidden.", DIFF_CTA,
  [["st.weak x, 1", "ld.relaxed.gpu r0, y"], ["fence.acq_rel.gpu", "fence.acq_rel.gpu"], ["st.relaxed.gpu y, 1", "ld.weak r1, x"]], mp_cond, 0)
t("MP+bar", "A CTA barrier orders the writes before it for the reads after it: forbidden.", SAME_CTA,
  [["st.weak x, 1", "bar.cta.sync 0"], ["bar.cta.sync 0", "ld.weak r1, x"]], "exists (P1:r1 == 0)", 0)
t("MP+ptx-syntax", "The same shape in real PTX syntax (volatile is relaxed.sys; no synchronisation): allowed.", DIFF_CTA,
  [["st.volatile.global.u32 [x], 1", "ld.volatile.global.u32 %r0, [y]"], ["st.volatile.global.u32 [y], 1", "ld.volatile.global.u32 %r1, [x]"]], mp_cond, 1)
t("MP+ptx-syntax-rel-acq", "Real PTX syntax with st.release / ld.acquire at gpu scope: forbidden.", DIFF_CTA,
  [["st.global.u32 [x], 1", "ld.acquire.gpu.global.u32 %r0, [y]"], ["st.release.gpu.global.u32 [y], 1", "ld.global.u32 %r1, [x]"]], mp_cond, 0)

# SB: store buffering.
sb_cond = "exists (P0:r0 == 0 /\\ P1:r1 == 0)"
t("SB+rlx", "Both loads may miss the other thread's store: allowed.", DIFF_CTA,
  [["st.relaxed.gpu x, 1", "st.relaxed.gpu y, 1"], ["ld.relaxed.gpu r0, y", "ld.relaxed.gpu r1, x"]], sb_cond, 1)
t("SB+fence.sc-gpu", "fence.sc at gpu scope on both sides: forbidden.", DIFF_CTA,
  [["st.relaxed.gpu x, 1", "st.relaxed.gpu y, 1"], ["fence.sc.gpu", "fence.sc.gpu"], ["ld.relaxed.gpu r0, y", "ld.relaxed.gpu r1, x"]], sb_cond, 0)
t("SB+fence.sc-cta-diff-cta", "fence.sc at cta scope does not order across CTAs: allowed.", DIFF_CTA,
  [["st.relaxed.gpu x, 1", "st.relaxed.gpu y, 1"], ["fence.sc.cta", "fence.sc.cta"], ["ld.relaxed.gpu r0, y", "ld.relaxed.gpu r1, x"]], sb_cond, 1)
t("SB+fence.acq_rel", "acq_rel fences do not restore store-to-load order: allowed.", DIFF_CTA,
  [["st.relaxed.gpu x, 1", "st.relaxed.gpu y, 1"], ["fence.acq_rel.gpu", "fence.acq_rel.gpu"], ["ld.relaxed.gpu r0, y", "ld.relaxed.gpu r1, x"]], sb_cond, 1)
t("SB+rel+acq", "Release stores and acquire loads do not order a store before a later load: allowed.", DIFF_CTA,
  [["st.release.gpu x, 1", "st.release.gpu y, 1"], ["ld.acquire.gpu r0, y", "ld.acquire.gpu r1, x"]], sb_cond, 1)
t("SB+membar", "membar.gl is fence.sc.gpu (real PTX syntax): forbidden.", DIFF_CTA,
  [["st.relaxed.gpu.global.u32 [x], 1", "st.relaxed.gpu.global.u32 [y], 1"], ["membar.gl", "membar.gl"], ["ld.relaxed.gpu.global.u32 %r0, [y]", "ld.relaxed.gpu.global.u32 %r1, [x]"]], sb_cond, 0)

# LB: load buffering.
lb_cond = "exists (P0:r0 == 1 /\\ P1:r1 == 1)"
t("LB+rlx", "Relaxed load buffering is not forbidden by any axiom: allowed.", DIFF_CTA,
  [["ld.relaxed.gpu r0, x", "ld.relaxed.gpu r1, y"], ["st.relaxed.gpu y, 1", "st.relaxed.gpu x, 1"]], lb_cond, 1)
t("LB+acq+rel", "Acquire loads and release stores: forbidden.", DIFF_CTA,
  [["ld.acquire.gpu r0, x", "ld.acquire.gpu r1, y"], ["st.release.gpu y, 1", "st.release.gpu x, 1"]], lb_cond, 0)
t("LB+data", "Storing what was read: a value out of thin air, forbidden.", DIFF_CTA,
  [["ld.relaxed.gpu r0, x", "ld.relaxed.gpu r1, y"], ["st.relaxed.gpu y, r0", "st.relaxed.gpu x, r1"]], lb_cond, 0)

# IRIW: independent reads of independent writes.
IRIW_T = ["P0@cta 0,gpu 0", "P1@cta 1,gpu 0", "P2@cta 2,gpu 0", "P3@cta 3,gpu 0"]
iriw_cond = "exists (P1:r0 == 1 /\\ P1:r1 == 0 /\\ P3:r2 == 1 /\\ P3:r3 == 0)"
t("IRIW+acq", "PTX is not multi-copy atomic: readers may disagree on the order of the writes, even with acquire loads.", IRIW_T,
  [["st.relaxed.gpu x, 1", "ld.acquire.gpu r0, x", "st.relaxed.gpu y, 1", "ld.acquire.gpu r2, y"],
   ["", "ld.acquire.gpu r1, y", "", "ld.acquire.gpu r3, x"]], iriw_cond, 1)
t("IRIW+fence.sc", "fence.sc between each reader's loads: forbidden.", IRIW_T,
  [["st.relaxed.gpu x, 1", "ld.relaxed.gpu r0, x", "st.relaxed.gpu y, 1", "ld.relaxed.gpu r2, y"],
   ["", "fence.sc.gpu", "", "fence.sc.gpu"],
   ["", "ld.relaxed.gpu r1, y", "", "ld.relaxed.gpu r3, x"]], iriw_cond, 0)

# WRC and ISA2: cumulativity.
THREE = ["P0@cta 0,gpu 0", "P1@cta 1,gpu 0", "P2@cta 2,gpu 0"]
t("WRC+rel+acq", "Release/acquire is cumulative: P2 must see P0's write once it sees P1's: forbidden.", THREE,
  [["st.relaxed.gpu x, 1", "ld.acquire.gpu r0, x", "ld.acquire.gpu r1, y"], ["", "st.release.gpu y, 1", "ld.relaxed.gpu r2, x"]],
  "exists (P1:r0 == 1 /\\ P2:r1 == 1 /\\ P2:r2 == 0)", 0)
t("WRC+rlx", "Without release/acquire the write need not propagate: allowed.", THREE,
  [["st.relaxed.gpu x, 1", "ld.relaxed.gpu r0, x", "ld.relaxed.gpu r1, y"], ["", "st.relaxed.gpu y, 1", "ld.relaxed.gpu r2, x"]],
  "exists (P1:r0 == 1 /\\ P2:r1 == 1 /\\ P2:r2 == 0)", 1)
t("ISA2+rel+acq", "A chain of release/acquire pairs through three threads: forbidden.", THREE,
  [["st.weak x, 1", "ld.acquire.gpu r0, y", "ld.acquire.gpu r1, z"], ["st.release.gpu y, 1", "st.release.gpu z, 1", "ld.weak r2, x"]],
  "exists (P1:r0 == 1 /\\ P2:r1 == 1 /\\ P2:r2 == 0)", 0, init="x=0; y=0; z=0;")

# 2+2W, R, S: coherence with two locations.
t("2+2W+rlx", "Coherence orders need not agree with program order across locations: allowed.", DIFF_CTA,
  [["st.relaxed.gpu x, 1", "st.relaxed.gpu y, 1"], ["st.relaxed.gpu y, 2", "st.relaxed.gpu x, 2"]], "exists (x == 1 /\\ y == 1)", 1)
t("2+2W+rel", "Release stores: the second store of each thread is ordered after the first by a release pattern only with an observer, so still allowed.", DIFF_CTA,
  [["st.relaxed.gpu x, 1", "st.relaxed.gpu y, 1"], ["st.release.gpu y, 2", "st.release.gpu x, 2"]], "exists (x == 1 /\\ y == 1)", 1)
t("2+2W+fence.sc", "fence.sc between the stores: forbidden.", DIFF_CTA,
  [["st.relaxed.gpu x, 1", "st.relaxed.gpu y, 1"], ["fence.sc.gpu", "fence.sc.gpu"], ["st.relaxed.gpu y, 2", "st.relaxed.gpu x, 2"]], "exists (x == 1 /\\ y == 1)", 0)
t("R+fence.sc", "R: a write-write and a write-read pair; fence.sc on both sides forbids it.", DIFF_CTA,
  [["st.relaxed.gpu x, 1", "st.relaxed.gpu y, 2"], ["fence.sc.gpu", "fence.sc.gpu"], ["st.relaxed.gpu y, 1", "ld.relaxed.gpu r0, x"]], "exists (y == 2 /\\ P1:r0 == 0)", 0)
t("R+rlx", "R without fences: allowed.", DIFF_CTA,
  [["st.relaxed.gpu x, 1", "st.relaxed.gpu y, 2"], ["st.relaxed.gpu y, 1", "ld.relaxed.gpu r0, x"]], "exists (y == 2 /\\ P1:r0 == 0)", 1)
t("S+rel+acq", "S: once P1 acquires y it must write x after P0's write: forbidden.", DIFF_CTA,
  [["st.relaxed.gpu x, 2", "ld.acquire.gpu r0, y"], ["st.release.gpu y, 1", "st.relaxed.gpu x, 1"]], "exists (x == 2 /\\ P1:r0 == 1)", 0)

# Single-location coherence.
t("CoRR+rlx", "Two relaxed reads of one location cannot go back in coherence order: forbidden.", DIFF_CTA,
  [["st.relaxed.gpu x, 1", "ld.relaxed.gpu r0, x"], ["", "ld.relaxed.gpu r1, x"]], "exists (P1:r0 == 1 /\\ P1:r1 == 0)", 0)
t("CoRR+weak", "Weak reads racing with a write in another CTA promise nothing: allowed.", DIFF_CTA,
  [["st.weak x, 1", "ld.weak r0, x"], ["", "ld.weak r1, x"]], "exists (P1:r0 == 1 /\\ P1:r1 == 0)", 1)
t("CoWR+rlx", "P0 reads P1's store after its own; then its own cannot be coherence-last (x == 1): forbidden.", DIFF_CTA,
  [["st.relaxed.gpu x, 1", "st.relaxed.gpu x, 2"], ["ld.relaxed.gpu r0, x", ""]], "exists (P0:r0 == 2 /\\ x == 1)", 0)
t("CoWR+rlx-agree", "Reading P1's store after its own, with P1's store coherence-last: allowed.", DIFF_CTA,
  [["st.relaxed.gpu x, 1", "st.relaxed.gpu x, 2"], ["ld.relaxed.gpu r0, x", ""]], "exists (P0:r0 == 2 /\\ x == 2)", 1)

# RMW atomicity.
t("RMW+add-gpu", "Two gpu-scope atomic increments never both read 0: x ends at 2.", DIFF_CTA,
  [["atom.relaxed.gpu.add r0, x, 1", "atom.relaxed.gpu.add r1, x, 1"]], "forall (x == 2)", 1, init="x=0;")
t("RMW+add-cta-diff-cta", "cta-scope atomics in different CTAs are not atomic with each other: x may end at 1.", DIFF_CTA,
  [["atom.relaxed.cta.add r0, x, 1", "atom.relaxed.cta.add r1, x, 1"]], "exists (x == 1)", 1, init="x=0;")
t("RMW+cas-lock", "Two CAS lock attempts: exactly one succeeds.", DIFF_CTA,
  [["atom.acquire.gpu.cas r0, x, 0, 1", "atom.acquire.gpu.cas r1, x, 0, 2"]], "~exists (P0:r0 == 0 /\\ P1:r1 == 0)", 1, init="x=0;")

# Proxies: y is a second virtual address of x's memory (a generic alias).
ALIAS = "x=0; y @ generic aliases x; flag=0;"
alias_cond = "exists (P1:r0 == 1 /\\ P1:r1 == 0)"
t("MP+alias", "Release/acquire orders the write of x before the read of x, not of its alias y: without a proxy fence the stale read is allowed.", SAME_CTA,
  [["st.weak x, 1", "ld.acquire.gpu r0, flag"], ["st.release.gpu flag, 1", "ld.weak r1, y"]], alias_cond, 1, init=ALIAS)
t("MP+alias+fence.proxy.alias", "fence.proxy.alias on the causality path carries the order to the alias: forbidden.", SAME_CTA,
  [["st.weak x, 1", "ld.acquire.gpu r0, flag"], ["fence.proxy.alias", ""], ["st.release.gpu flag, 1", "ld.weak r1, y"]], alias_cond, 0, init=ALIAS)

def write(name, expl, threads, rows, cond, init):
    ncols = len(threads)
    cells = [threads] + rows
    widths = [max(len(r[c]) for r in cells) for c in range(ncols)]
    lines = [f"PTX {name}", f'"{expl}"', "{", " " + init, "}"]
    for r in cells:
        lines.append(" " + " | ".join(r[c].ljust(widths[c]) for c in range(ncols)) + " ;")
    lines.append(cond)
    open(f"{name}.litmus", "w").write("\n".join(lines) + "\n")

with open("expected.csv", "w") as f:
    f.write("// ptxemu's own litmus library: 1 when the condition holds under ptx-v7.5 (worked out by hand)\n")
    for (name, expl, threads, rows, cond, holds, init) in tests:
        write(name, expl, threads, rows, cond, init)
        f.write(f"litmus/tests/library/{name}.litmus,{holds}\n")
    # Written by hand (not generated here), kept in the expectations.
    f.write("litmus/tests/library/FenceSC+cta-then-sys.litmus,1\n")
