#!/usr/bin/env bash
# Runs one `ptxemu difftest` batch on a machine with an NVIDIA GPU and nvcc, and keeps what
# litmus/hardware/<gpu>/ records: the environment, the summary and the shrunk mismatches.
#
#   difftest-on-gpu.sh PTXEMU SEED TIME_LIMIT_S MAX_SHRINK RESULT_DIR
#
# PTXEMU is a built ptxemu binary; the batch asks for 10^6 kernels and stops starting new
# modules after TIME_LIMIT_S seconds (the summary says how many ran). RESULT_DIR receives
# env.txt, summary-seed-SEED.json and mismatches-seed-SEED.tar.gz.
set -euo pipefail
ptxemu=$1 seed=$2 limit=$3 shrink=$4 result=$5
mkdir -p "$result"
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  nvcc --version | tail -n 2
  nproc
} >"$result/env.txt"
work=$(mktemp -d)
export CUDA_CACHE_DISABLE=1 # random kernels never hit the JIT cache; writing it costs time
status=0
"$ptxemu" difftest --count 1000000 --per-module 250 --jobs "$(nproc)" --seed "$seed" \
  --time-limit "$limit" --max-shrink "$shrink" --out "$work" || status=$?
cp "$work/summary.json" "$result/summary-seed-$seed.json"
if [ -d "$work/mismatches" ]; then
  tar -C "$work" -czf "$result/mismatches-seed-$seed.tar.gz" mismatches
fi
echo "difftest exit status $status"
