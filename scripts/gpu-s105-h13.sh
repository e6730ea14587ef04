#!/usr/bin/env bash
# Session 105, step h13 (issue 48: h8's split of K over a cluster on h11's 128x192 tiles), call 1: the HGEMM
# GPU test (every step on ragged shapes, h13's seven cluster sizes in f16 and bf16 among them), memcheck and
# racecheck of h13 forced, an f16 calibration (h13's constants for the shipped models, h8's beside them to
# compare with the shipped ones), and every candidate (--autotune, bf16, one process) on session 99's draw of
# 128-512-row corpus shapes plus the two shapes under 0.90x that motivated h13 — the cache comes back as
# $OUT/tune-s105.json for `kernel-lab rank --tune-cache`.
# Carry: scripts/slim-carry.sh gpu
set -uo pipefail
. scripts/device-log.sh s105-h13.txt 300
T=300 run $C/tests/gpu --test-threads 1 every_hgemm_step
stamp tests
for tool in memcheck racecheck; do
  T=120 run compute-sanitizer --tool $tool --error-exitcode 9 $C/kernel-lab --family gemm --dtype bf16 --config h13x4-bf16 --gemm-sizes 1000x1000x1000,130x328x72,300x3000x2000 --reps 2 --warmup 1
  T=120 run compute-sanitizer --tool $tool --error-exitcode 9 $C/kernel-lab --family gemm --dtype f16 --config h13x3 --gemm-sizes 257x776x640,130x328x72 --reps 2 --warmup 1
done
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard" "$L" | tail -8
stamp sanitizers
T=240 run $C/kernel-lab calibrate --dtype f16 --out $OUT/cost-s105.tsv --samples $OUT/cal-samples-s105.tsv
grep -E "^h8x|^h13x|^h11|^h6s4|^d22r128" $OUT/cost-s105.tsv | tee -a "$L"
stamp calibrate
SHAPES=128x1536x4096,128x32064x3072,128x3840x5120,192x1152x3072,192x2304x3072,192x3072x2048,192x3072x3072,192x4096x1024,256x16384x3072,256x2048x2048,256x2048x512,256x4096x1792,384x3584x2048,384x3584x3584,384x4096x7168,384x768x96,512x1024x3584,512x128256x3072,512x7168x4096,512x768x192,256x3072x8192,512x3072x4096
T=200 run $C/kernel-lab --family gemm --dtype bf16 --gemm-sizes $SHAPES --autotune --tune-cache $OUT/tune-s105.json
stamp candidates
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
