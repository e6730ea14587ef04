#!/usr/bin/env bash
# Session 80: issue 48's standing after d27 (session 76) and d2's grid (session 79): the GEMM entry point
# against cuBLAS over a fresh 200-shape corpus sample (`shapes.py gemm --sample 200 --seed 8080`,
# results/2026-12-02-h200-session80/sample-200-seed8080.tsv), 3 processes per type, 10 repetitions a
# measurement, each shape interleaved with cuBLAS (scripts/entry-medians.py takes the logs); first
# `kernel-lab calibrate` on this GPU (its constants beside the shipped H200 model's).
set -uo pipefail
. scripts/device-log.sh s80-sample-${DTYPES:-all}.txt 200
S=results/2026-12-02-h200-session80/sample-200-seed8080.tsv
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; }
if [ -z "${NO_CAL:-}" ]; then
  T=120 run $C/kernel-lab calibrate --out $OUT/cost-s80.tsv --samples $OUT/cal-samples-s80.tsv
  stamp calibrate
fi
for i in 1 2 3; do
  for d in ${DTYPES:-bf16 f16}; do
    T=${PT:-170} run $C/kernel-lab --family gemm --dtype $d --reps 10 --warmup 2 --shapes-file $S --seed 808$i
    stamp "$d process $i"
  done
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
