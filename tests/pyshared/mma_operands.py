"""Operands of the matrix-multiply fixture generators (tests/fixtures/wgmma/gen.py and
tests/fixtures/tcgen05/mma_gen.py): element encodings, random inputs whose products and sums
are exact in binary32, and shared-memory images laid out by the PTX ISA's canonical layouts
(evaluated as CuTe layouts, then swizzled), independently of ptxemu.

Import it from a generator with
    sys.path.insert(0, os.path.join(HERE, "..", "..", "pyshared"))
"""

import json
import os

import numpy as np

# Element width in bits; the FP6/FP4 types of tcgen05's .kind::f8f6f4 sit in 8-bit containers.
BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8, "b1": 1,
        "e2m3": 8, "e3m2": 8, "e2m1": 8}
# swizzle mode: (XOR bit count b of Swizzle<b,4,3>, atom width in bytes)
SWZ = {"none": (0, 16), "32B": (1, 32), "64B": (2, 64), "128B": (3, 128)}
# minifloat formats: (exponent bits, mantissa bits, bias)
FMT = {"e4m3": (4, 3, 7), "e5m2": (5, 2, 15), "e2m3": (2, 3, 1), "e3m2": (3, 2, 3),
       "e2m1": (2, 1, 1)}


# ---- element encodings ---------------------------------------------------------------------

def minifloat_bits(v, ebits, mbits, bias):
    """The code of a value exactly representable in a sign/exponent/mantissa format."""
    if v == 0:
        return 0
    s = 1 << (ebits + mbits) if v < 0 else 0
    a = abs(v)
    e = int(np.floor(np.log2(a)))
    if e + bias <= 0:  # subnormal
        code = a / 2.0 ** (1 - bias) * (1 << mbits)
        assert code == int(code)
        return s | int(code)
    m = (a / 2.0 ** e - 1.0) * (1 << mbits)
    assert m == int(m) and e + bias < (1 << ebits), (v, ebits, mbits)
    return s | ((e + bias) << mbits) | int(m)


def bits_of(v, t):
    """The code of input element v of type t."""
    if t == "f16":
        return int(np.array(v, dtype=np.float16).view(np.uint16))
    if t == "bf16":
        return int(np.array(v, dtype=np.float32).view(np.uint32)) >> 16
    if t == "tf32":
        return int(np.array(v, dtype=np.float32).view(np.uint32))
    if t == "e2m1":  # in an 8-bit container, bits 5-2
        return minifloat_bits(v, *FMT[t]) << 2
    if t in FMT:
        return minifloat_bits(v, *FMT[t])
    if t in ("s8", "u8"):
        return int(v) & 0xFF
    if t == "b1":
        return int(v) & 1
    raise ValueError(t)


def d_bits(v, dt):
    """The code of accumulator element v of type dt (s32 wraps to 32 bits)."""
    if dt == "f32":
        return int(np.array(v, dtype=np.float32).view(np.uint32))
    if dt == "f16":
        return int(np.array(v, dtype=np.float16).view(np.uint16))
    return int(v) & 0xFFFFFFFF


def to_s32(want, sat):
    """Exact integer results as an s32 accumulator holds them: saturated or wrapped."""
    want = want.astype(np.int64)
    return np.clip(want, -2**31, 2**31 - 1) if sat else (want + 2**31) % 2**32 - 2**31


def values(rng, t, shape):
    """Random inputs of type t."""
    if t == "s8":
        return rng.integers(-128, 128, shape)
    if t == "u8":
        return rng.integers(0, 256, shape)
    if t == "b1":
        return rng.integers(0, 2, shape)
    if t == "e2m1":
        return rng.choice([0, 0.5, 1, 1.5, 2, 3, -1, -2, -0.5], shape)
    # small integers and halves: exact in every input format, products and sums exact in f32
    return rng.integers(-6, 7, shape) / np.where(rng.random(shape) < 0.25, 2.0, 1.0)


def pack_words(codes, bits):
    """32-bit words from element codes of `bits` bits each, lowest element in the low bits."""
    per = 32 // bits
    out = []
    for i in range(0, len(codes), per):
        w = 0
        for j, v in enumerate(codes[i:i + per]):
            w |= (v & ((1 << bits) - 1)) << (j * bits)
        out.append(w)
    return out


# ---- canonical layouts (PTX ISA "Canonical Layouts"), as CuTe layouts ------------------------

def cute(shape, stride, idx):
    """Offset of flat index idx (colexicographic) in a layout of nested shape/stride tuples."""
    off = 0
    for s, d in zip(shape, stride):
        off += (idx % s) * d
        idx //= s
    return off


def layout_offset(major, swz, bits, lbo, sbo, mn, k):
    """Bit offset of element (mn, k) from the start address, before swizzling."""
    t = 128 // bits
    e = lambda nbytes: nbytes * 8 // bits  # bytes to elements
    if major == "K":
        if swz == "none":
            off = cute((8, 64), (t, e(sbo)), mn) + cute((t, 64), (1, e(lbo)), k)
        else:
            s = SWZ[swz][1] // 16
            off = cute((8, 64), (s * t, e(sbo)), mn) + cute((t, 64), (1, t), k)
    else:
        if swz == "none":
            off = cute((t, 1, 64), (1, t, e(sbo)), mn) + cute((8, 64), (t, e(lbo)), k)
        else:
            s = SWZ[swz][1] // 16
            off = cute((t, s, 64), (1, t, e(lbo)), mn) + cute((8, 64), (s * t, e(sbo)), k)
    return off * bits


def swizzle(swz, addr):
    """Swizzle<b,4,3> of a byte address."""
    b = SWZ[swz][0]
    if b == 0:
        return addr
    return addr ^ ((addr & (((1 << b) - 1) << 7)) >> 3)


def place(img, start, major, swz, t, lbo, sbo, mat):
    """Writes matrix mat[mn][k] (values of type t) into the byte image img; returns the end of
    the bytes written."""
    bits = BITS[t]
    end = 0
    for mn in range(mat.shape[0]):
        for kk in range(mat.shape[1]):
            off = start * 8 + layout_offset(major, swz, bits, lbo, sbo, mn, kk)
            byte, bit = swizzle(swz, off // 8), off % 8
            v = bits_of(mat[mn, kk], t)
            for j in range(max(bits // 8, 1)):
                if bits == 1:
                    img[byte] = (img[byte] & ~(1 << bit)) | (v << bit)
                else:
                    img[byte + j] = (v >> (8 * j)) & 0xFF
                end = max(end, byte + j + 1)
    return end


def kstep_layout(major, swz, mn, bits, steps):
    """(LBO, SBO, start advance per k-step) in bytes of an operand with `mn` rows (M or N)
    consumed in `steps` chained k-steps of 32 bytes each, as Triton lays them out: a K-major
    image holds each k-step's 32 bytes in its own region (no swizzle) or side by side within the
    swizzle atom while they fit."""
    width = SWZ[swz][1]
    t = 128 // bits
    if major == "K":
        if swz == "none":
            return 128, 256, 256 * (mn // 8)  # a k-step is two columns of core matrices
        # LBO unused (encoded 1)
        adv = 32 if 32 * steps <= width else 8 * width * (mn // 8)
        return 16, 8 * width, adv
    if swz == "none":
        return 128 * (mn // t), 128, 256 * (mn // t)
    per_atom = width * 8 // bits  # MN elements per atom
    atoms = -(-mn // per_atom)  # atoms side by side along MN
    return 8 * width, 8 * width * atoms, 2 * 8 * width * atoms


def smem_image(capacity, k1, steps, a, b):
    """The shared-memory image of both operands: A (None where it is not in shared memory) at
    0, B at the next 1024-byte boundary after it; the image is cut at a 1024-byte boundary.
    `a`, `b`: (matrix [mn][k], major, swizzle, type, (lbo, sbo, advance)); k-step s of a
    matrix is its columns s*k1 .. (s+1)*k1, placed at start + s * advance.
    Returns (image, B's start)."""
    img = bytearray(capacity)
    used = 0

    def put(start, op):
        nonlocal used
        mat, major, swz, t, (lbo, sbo, adv) = op
        for s in range(steps):
            used = max(used, place(img, start + s * adv, major, swz, t, lbo, sbo,
                                   mat[:, s * k1:(s + 1) * k1]))

    if a is not None:
        put(0, a)
    b_start = -(-used // 1024) * 1024
    put(b_start, b)
    size = -(-used // 1024) * 1024
    return img[:size], b_start


# ---- kernel text ---------------------------------------------------------------------------

COPY_IMAGE = """ld.param.u64 %rd1, [img];
cvta.to.global.u64 %rd1, %rd1;
mov.u32 %r1, %tid.x;
mov.u32 %r2, smem;
shl.b32 %r3, %r1, 2;
$copy:
setp.ge.u32 %p1, %r3, {size};
@%p1 bra $copied;
cvt.u64.u32 %rd2, %r3;
add.s64 %rd3, %rd1, %rd2;
ld.global.u32 %r4, [%rd3];
add.u32 %r5, %r2, %r3;
st.shared.u32 [%r5], %r4;
add.u32 %r3, %r3, {step};
bra $copy;
$copied:"""


def copy_image(size, threads):
    """PTX that copies the image (parameter `img`, `size` bytes) into the shared array `smem`
    with generic stores, a word per thread per round over `threads` threads. It leaves
    %r1 = %tid.x and %r2 = the address of `smem`, and uses %p1, %r3-%r5 and %rd1-%rd3."""
    return COPY_IMAGE.format(size=size, step=4 * threads)


# ---- writing a case ------------------------------------------------------------------------

def write_words(path, words):
    """Writes 32-bit words as numpy uint32 (the machine's byte order)."""
    np.array(words, dtype=np.uint32).tofile(path)


def write_manifest(folder, manifest):
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
