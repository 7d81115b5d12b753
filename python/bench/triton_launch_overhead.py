"""Launch overhead of Triton's path on ptxemu (``kernel[grid](...)``: Triton's JIT binder, cache
lookup and ptxemu's launcher) against a direct ``Function`` call of the same compiled PTX with
the same arguments. Prints microseconds per launch (best of 5 rounds) and the difference.

    python python/bench/triton_launch_overhead.py [LAUNCHES]
"""

import os
import sys
import tempfile
import time

import numpy as np

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="ptxemu-bench-"))
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

import ptxemu  # noqa: E402
import ptxemu.triton  # noqa: E402


@triton.jit
def tiny(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


def best(call, n):
    for _ in range(50):
        call()
    rounds = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(n):
            call()
        rounds.append((time.perf_counter() - t) / n * 1e6)
    return min(rounds)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    dev = ptxemu.triton.device()
    for label, x, out in [
        ("device arrays", dev.zeros(32, np.float32), dev.zeros(32, np.float32)),
        ("numpy arrays (copied in and out)", np.zeros(32, np.float32), np.zeros(32, np.float32)),
    ]:
        k = tiny[(1,)](x, out, 32, BLOCK=32)
        f = ptxemu.triton.module_of(k, ptxemu.triton.gpu()).get_function(k.name)
        threads = k.metadata.num_warps * 32

        def direct():
            f(1, threads, (x, out, 32, 0, 0), k.metadata.shared, device=dev)

        def through_triton():
            tiny[(1,)](x, out, 32, BLOCK=32)

        d = best(direct, n)
        t = best(through_triton, n)
        print(f"{label:34s} Function {d:8.1f} us   kernel[grid] {t:8.1f} us   "
              f"overhead {t - d:8.1f} us")


if __name__ == "__main__":
    main()
