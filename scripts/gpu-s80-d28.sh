#!/usr/bin/env bash
# Session 80, step d28 (issue 48: d15/d16's CTA with K split over a cluster, partials summed through DSMEM):
# the kernel-lab-bench GPU tests (every HGEMM step on ragged shapes, d28 among them), memcheck and racecheck
# of d28 forced at two shapes, a calibration (its constants for the shipped models), and every candidate
# timed (`--autotune`, bf16, one process) on the shapes of results/2026-12-02-h200-session80/d28-shapes.txt.
set -uo pipefail
. scripts/device-log.sh s80-d28.txt 300
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; }
T=240 run $C/tests/gpu --test-threads 1
stamp tests
for cfg in d28x4-bf16 d28m64x2-bf16; do
  for tool in memcheck racecheck; do
    T=120 run compute-sanitizer --tool $tool --error-exitcode 9 $C/kernel-lab --family gemm --dtype bf16 --config $cfg --gemm-sizes 100x1024x2048,5x520x1000 --reps 2 --warmup 1
  done
done
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard" "$L" | tail -8
stamp sanitizers
T=120 run $C/kernel-lab calibrate --out $OUT/cost-s80-d28.tsv --samples $OUT/cal-samples-s80-d28.tsv
stamp calibrate
S=$(paste -sd, results/2026-12-02-h200-session80/d28-shapes.txt)
T=260 run $C/kernel-lab --family gemm --dtype bf16 --gemm-sizes $S --autotune --tune-cache $OUT/tune-d28.json
stamp autotune
grep -E "^exit [1-9]|panicked" "$L" | head || true
