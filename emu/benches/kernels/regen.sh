#!/usr/bin/env bash
# Regenerates bench_kernels.ptx from bench_kernels.cu with nvcc 13 (PyPI nvidia-cuda-nvcc).
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-$(python3 -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "cu13/bin/nvcc"))' 2>/dev/null || echo nvcc)}
"$NVCC" -ptx -arch=sm_90 -O3 bench_kernels.cu -o bench_kernels.ptx
