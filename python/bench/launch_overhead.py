"""Times launches of a trivial kernel from Python: the whole call, and the kernel's own run
(LaunchStats.wall_s, measured inside the interpreter). Prints per-launch microseconds."""

import sys
import time

import numpy as np

import ptxemu

PTX = """
.version 7.8
.target sm_80
.address_size 64
.visible .entry noop(.param .u64 p, .param .u32 n)
{
  ret;
}
"""


def bench(f, args, n, **kw):
    for _ in range(100):
        f(1, 32, args, **kw)
    best = None
    for _ in range(5):
        kernel = 0.0
        t = time.perf_counter()
        for _ in range(n):
            kernel += f(1, 32, args, **kw).wall_s
        total = time.perf_counter() - t
        r = (total / n * 1e6, kernel / n * 1e6)
        best = r if best is None or r[0] < best[0] else best
    return best


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    m = ptxemu.Module(PTX)
    f = m.get_function("noop")
    dev = ptxemu.Device()
    d = dev.zeros(1 << 20, np.float32)
    host = np.zeros(1 << 20, np.float32)
    for label, args, kw in [
        ("device array, numpy scalar, threads=1", (d, np.uint32(5)), {"threads": 1}),
        ("device array, Python int, threads=1", (d, 5), {"threads": 1}),
        ("device array, default threads", (d, np.uint32(5)), {}),
        ("4 MiB numpy array copied in and out, threads=1", (host, 5), {"threads": 1}),
    ]:
        total, kernel = bench(f, args, n if "MiB" not in label else n // 10, **kw)
        print(f"{label:48s} call {total:8.1f} us  kernel {kernel:8.1f} us  "
              f"overhead {total - kernel:8.1f} us")


if __name__ == "__main__":
    main()
