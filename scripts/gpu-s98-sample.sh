#!/usr/bin/env bash
# Session 98 (issue 48), call 4: the GEMM entry (.carry/kernel-lab: the staged decode stores, session 98's model)
# against cuBLAS on a fresh corpus sample (`shapes.py gemm --sample 200 --seed 9898`; its first N, default all),
# DTYPE (default bf16), 3 processes.
set -uo pipefail
DTYPE=${DTYPE:-bf16}
. scripts/device-log.sh s98-sample-$DTYPE.txt 300
xz -dc results/2026-12-04-h200-session98/sample-200-seed9898.tsv.xz | head -n ${N:-200} > /tmp/sample-9898.tsv
for i in 1 2 3; do
  echo "== set sample-9898-$DTYPE process $i build new" | tee -a "$L"
  T=190 run $C/kernel-lab --family gemm --dtype $DTYPE --reps 10 --warmup 2 --shapes-file /tmp/sample-9898.tsv --seed 989$i
  stamp "sample process $i"
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
