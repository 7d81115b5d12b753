#!/usr/bin/env python3
"""Generates one-instruction cases of tcgen05.mma (and .ws) and tcgen05.commit, asks NVIDIA's
ptxas which it accepts at several targets, and records the verdicts in tcgen05_mma.tsv.

Usage: gen_tcgen05_mma.py PTXAS [MESSAGES]
  PTXAS: path to ptxas from the PyPI package nvidia-cuda-nvcc 13.x
  MESSAGES: where to write ptxas's first message for every rejected case (not committed)

Each case is one instruction line placed alone in the kernel of tcgen05_mma_kernel.ptx (%rd1/%rd2
hold descriptors, %r1..%r4 Tensor Memory addresses and the idesc, %p1 a predicate, %rd3 an
mbarrier) and assembled by itself. ptxemu refuses tcgen05.mma.sp as unsupported, so it has no
case here (tests in tools/tests/tcgen05_mma_cli.rs check the refusal).
"""

import os

import one_line_cases

HERE = os.path.dirname(os.path.abspath(__file__))

# (.target, .version, -arch)
TARGETS = [
    ("sm_90a", "8.7", "sm_90a"),
    ("sm_100a", "8.6", "sm_100a"),
    ("sm_100a", "8.8", "sm_100a"),
    ("sm_100f", "8.8", "sm_100f"),
    ("sm_103a", "8.8", "sm_103a"),
    ("sm_110a", "9.0", "sm_110a"),
]

CASES = ['tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.cta_group::1.kind::f16 [%r1], [%r3], %rd2, %r2, %p1;', 'tcgen05.mma.cta_group::1.kind::tf32 [%r1], %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.cta_group::1.kind::i8 [%r1], %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.cta_group::1.kind::f8f6f4 [%r1], %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.cta_group::2.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, {%r4, %r5, %r6, %r7}, %p1;', 'tcgen05.mma.cta_group::2.kind::f16 [%r1], %rd1, %rd2, %r2, {%r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11}, %p1;', 'tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, {%r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11}, %p1;', 'tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1, 3;', 'tcgen05.mma.cta_group::1.kind::i8 [%r1], %rd1, %rd2, %r2, %p1, 3;', 'tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, 1;', 'tcgen05.mma.cta_group::1.kind::f16.collector::a::fill [%r1], [%r3], %rd2, %r2, %p1;', 'tcgen05.mma.cta_group::1.kind::f16.collector::a::lastuse [%r1], [%r3], %rd2, %r2, %p1;', 'tcgen05.mma.cta_group::1.kind::f16.collector::a::use [%r1], %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [%r1], %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.cta_group::1.kind::f16.collector::b0::fill [%r1], %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.ws.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::fill [%r1], %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.ws.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1, %rd3;', 'tcgen05.mma.ws.cta_group::2.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;', 'tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;', 'tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;', 'tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;', 'tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;', 'tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::4X [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;', 'tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::2X [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;', 'tcgen05.mma.cta_group::1.kind::mxf4.block_scale.block16 [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;', 'tcgen05.mma.cta_group::1.kind::f16.block_scale [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;', 'tcgen05.mma.cta_group::1.kind::mxf4 [%r1], %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.cta_group::1 [%r1], %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.cta_group::1.kind::f32 [%r1], %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %rd2, %p1;', 'tcgen05.mma.cta_group::1.kind::f16 [%r1], %r1, %rd2, %r2, %p1;', 'tcgen05.mma.cta_group::1.kind::f16 %r1, %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, [%r3], %r2, %p1;', 'tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, 1234, %p1;', 'tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %r3;', 'tcgen05.mma.cta_group::1.kind::tf32 [%r1], %rd1, %rd2, %r2, %p1, 15;', 'tcgen05.mma.cta_group::1.kind::tf32 [%r1], %rd1, %rd2, %r2, %p1, 16;', 'tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%rd3];', 'tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%rd3];', 'tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%rd3], 3;', 'tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [bar];', 'tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cta.b64 [%rd3];', 'tcgen05.commit.cta_group::1.b64 [%rd3];', 'tcgen05.commit.mbarrier::arrive::one.b64 [%rd3];', 'tcgen05.commit.cta_group::1.mbarrier::arrive::one [%rd3];', 'tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%r1];', 'tcgen05.commit.cta_group::1.mbarrier::arrive::one.multicast::cluster.b64 [%rd3], 3;', 'tcgen05.mma.cta_group::1.kind::i8.collector::a::fill [%r1], %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.cta_group::1.kind::f16 [%r1+16], %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, 0;', 'tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1, %r3;', 'tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, {%r4, %r5, %r6}, %p1;', 'tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, {%r4, %r5, %r6, %r7}, %p1, 2;', 'tcgen05.mma.cta_group::1.kind::f8f6f4 [%r1], %rd1, %rd2, %r2, %p1, 1;', 'tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1, 1;', 'tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%r1], [%r2], %rd2, %r2, [%r3], [%r4], %p1;', 'tcgen05.mma.cta_group::1.kind::f16.collector::a::fill.collector::a::use [%r1], [%r3], %rd2, %r2, %p1;', 'tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, {%r4, %r5, %r6, %r7}, %p1;', 'tcgen05.mma.ws.cta_group::1.kind::i8 [%r1], %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.ws.cta_group::1.kind::tf32 [%r1], [%r3], %rd2, %r2, %p1;', 'tcgen05.mma.ws.cta_group::1.kind::f16.collector::a::fill [%r1], %rd1, %rd2, %r2, %p1;', 'tcgen05.mma.ws.cta_group::1.kind::mxf4.block_scale [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;', 'tcgen05.mma.ws.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, {%r4, %r5, %r6, %r7}, %p1;', 'tcgen05.mma.cta_group::1.sync.aligned.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;', 'tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%rd3], %rs1;', 'tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%rd3], %rs1;', 'tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%rd3];', 'tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%rd3], %r2;', 'tcgen05.commit.cta_group::1.sync.aligned.mbarrier::arrive::one.b64 [%rd3];', 'tcgen05.commit.cta_group::1.mbarrier::arrive::one.b32 [%rd3];', 'tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 %rd3;', 'tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32 [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;', 'tcgen05.mma.cta_group::1.kind::mxf4.block_scale.block32 [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;', 'tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block32 [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;', 'tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16 [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;', 'tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block16 [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;', 'tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::2X.block32 [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;']


def cases():
    return list(CASES)


def main():
    one_line_cases.main(HERE, "gen_tcgen05_mma.py", "tcgen05_mma_kernel.ptx", "tcgen05_mma.tsv", TARGETS, cases())


if __name__ == "__main__":
    main()
