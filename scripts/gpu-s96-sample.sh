#!/usr/bin/env bash
# Session 96, issue 48: the GEMM entry with h12 (.carry/kernel-lab) against cuBLAS on a fresh corpus sample
# (`shapes.py gemm --sample 200 --seed 9696`), DTYPE (default bf16), 3 processes.
set -uo pipefail
DTYPE=${DTYPE:-bf16}
. scripts/device-log.sh "s96-sample-$DTYPE.txt" 300
xz -dc results/2026-12-04-h200-session96/sample-200-seed9696.tsv.xz > /tmp/sample-9696.tsv
for i in 1 2 3; do
  echo "== set sample-9696-$DTYPE process $i build new" | tee -a "$L"
  T=190 run $C/kernel-lab --family gemm --dtype $DTYPE --reps 10 --warmup 2 --shapes-file /tmp/sample-9696.tsv --seed 969$i
  stamp "sample process $i"
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
