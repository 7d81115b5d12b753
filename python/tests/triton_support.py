"""Shared by the Triton back-end tests: skip visibly without Triton, and the fresh cache
directory every test process compiles into."""

import os
import tempfile

import pytest

try:
    import triton
    import triton.language as tl
except ImportError:  # pragma: no cover - depends on the machine
    triton = None
    tl = None

needs_triton = pytest.mark.skipif(
    triton is None, reason="Triton is not installed: `pip install triton==3.9.0` to run the "
    "Triton back-end tests")

try:
    import torch
except ImportError:  # pragma: no cover - depends on the machine
    torch = None

needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is not installed: `pip install torch` to run the tests with "
    "CPU torch tensors")

if triton is not None:
    # One cache per test run: compiled kernels are not taken from an earlier run's cache.
    os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="ptxemu-triton-cache-"))
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")


def cdiv(a, b):
    return -(-a // b)
