"""Inputs and the numpy reference of conv.cu: a 40x24 image and a 17-tap filter, row pass
then column pass, clamped at the edges. Sums run in float32 in the kernels' order (k from
-8 to 8, products rounded then added: the PTX is compiled with -fmad=false), so the result
must match bit for bit."""
import numpy as np

R, W, H = 8, 40, 24
rng = np.random.default_rng(19)
img = rng.uniform(-1.0, 1.0, size=(H, W)).astype(np.float32)
ker = rng.uniform(0.0, 0.2, size=2 * R + 1).astype(np.float32)


def conv(src, axis):
    out = np.zeros_like(src)
    n = src.shape[1] if axis == 1 else src.shape[0]
    for y in range(H):
        for x in range(W):
            s = np.float32(0.0)
            for k in range(-R, R + 1):
                if axis == 1:
                    v = src[y, min(max(x + k, 0), n - 1)]
                else:
                    v = src[min(max(y + k, 0), n - 1), x]
                s = np.float32(s + np.float32(v * ker[R - k]))
            out[y, x] = s
    return out


rows = conv(img, 1)
both = conv(rows, 0)
img.tofile("image.bin")
ker.tofile("kernel.bin")
rows.tofile("rows.expected.bin")
both.tofile("out.expected.bin")
