#!/usr/bin/env bash
# Session 81, step d28m128 (issue 48: d28's one-consumer CTA on 128-row tiles, K split over a cluster):
# the kernel-lab-bench GPU tests (every HGEMM step on ragged shapes, d28m128 among them), memcheck and
# racecheck of d28m128 forced at two shapes, a calibration (with K 2048 among the decode tiles' shapes:
# the constants for the shipped models), and every candidate timed (`--autotune`, bf16, one process) on
# the shapes of results/2026-12-02-h200-session81/d28m128-shapes.txt.
set -uo pipefail
. scripts/device-log.sh s81-d28m128.txt 300
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; }
T=240 run $C/tests/gpu --test-threads 1
stamp tests
for pair in bf16:d28m128x4-bf16 f16:d28m128x2; do
  dt=${pair%%:*}; cfg=${pair#*:}
  for tool in memcheck racecheck; do
    T=120 run compute-sanitizer --tool $tool --error-exitcode 9 $C/kernel-lab --family gemm --dtype $dt --config $cfg --gemm-sizes 200x1024x2048,5x520x1000,130x136x4104 --reps 2 --warmup 1
  done
done
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard" "$L" | tail -8
stamp sanitizers
T=150 run $C/kernel-lab calibrate --out $OUT/cost-s81.tsv --samples $OUT/cal-samples-s81.tsv
stamp calibrate
S=$(paste -sd, results/2026-12-02-h200-session81/d28m128-shapes.txt)
T=280 run $C/kernel-lab --family gemm --dtype bf16 --gemm-sizes $S --autotune --tune-cache $OUT/tune-d28m128.json
stamp autotune
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
