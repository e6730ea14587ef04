#!/usr/bin/env bash
# Session 75: the GEMM entry point (f16, bf16) against cuBLAS over a fresh 200-shape corpus sample (seed 7521,
# results/2026-12-01-h200-session75/sample-200-seed7521.tsv), 3 processes per type alternating, 10 repetitions a
# measurement (issue 48's standing figure; scripts/entry-medians.py takes the logs). Carry: scripts/slim-carry.sh.
set -uo pipefail
. scripts/device-log.sh s75-sample-${DTYPES:-all}.txt 200
S=results/2026-12-01-h200-session75/sample-200-seed7521.tsv
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; }
for i in 1 2 3; do
  for d in ${DTYPES:-f16 bf16}; do
    T=${PT:-170} run $C/kernel-lab --family gemm --dtype $d --reps 10 --warmup 2 --shapes-file $S --seed 752$i
    stamp "$d process $i"
  done
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
