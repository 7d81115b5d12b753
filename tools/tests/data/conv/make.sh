#!/bin/sh
# Regenerates conv.ptx (nvcc 13.5, -fmad=false so the reference can round like the kernel)
# and the inputs and expected outputs (numpy). Not needed by the tests, which use the
# committed files.
set -e
cd "$(dirname "$0")"
NVCC=${NVCC:-nvcc}
"$NVCC" -arch=sm_90 -O3 -fmad=false -ptx conv.cu -o conv.ptx
${PYTHON:-python3} reference.py
