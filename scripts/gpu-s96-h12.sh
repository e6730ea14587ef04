#!/usr/bin/env bash
# Session 96, step h12 (issue 48: h11's CTA on 128×320 tiles), call 1: the HGEMM GPU test (every step on
# ragged shapes, h12 among them, and 272 tiles of 128×320 over three rounds), memcheck and racecheck of h12
# forced at three shapes, an f16 calibration (h12's constants for the shipped models), and h12 forced
# (`--config`) against the entry's pick at the shapes where the rule weighs it against the transposed tiles
# (3 processes, bf16).
set -uo pipefail
. scripts/device-log.sh s96-h12.txt 300
T=300 run $C/tests/gpu --test-threads 1 every_hgemm_step
stamp tests
for tool in memcheck racecheck; do
  T=120 run compute-sanitizer --tool $tool --error-exitcode 9 $C/kernel-lab --family gemm --dtype bf16 --config h12-bf16 --gemm-sizes 1000x5120x640,130x328x72,2100x5000x136 --reps 2 --warmup 1
done
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard" "$L" | tail -6
stamp sanitizers
T=200 run $C/kernel-lab calibrate --dtype f16 --out $OUT/cost-s96.tsv --samples $OUT/cal-samples-s96.tsv
grep -E "^h1[12]|^h6s4" $OUT/cost-s96.tsv | tee -a "$L"
stamp calibrate
B=896x11008x4096,1280x4096x4096,1152x4096x4096,640x4096x4096,1536x4096x4096,1024x5120x4096,2048x5120x4096,384x12288x4096
for i in 1 2 3; do
  echo "== set boundary process $i build entry" | tee -a "$L"
  T=100 run $C/kernel-lab --family gemm --dtype bf16 --reps 10 --warmup 2 --gemm-sizes $B --seed 961$i
  echo "== set boundary process $i build h12" | tee -a "$L"
  T=100 run $C/kernel-lab --family gemm --dtype bf16 --config h12-bf16 --reps 10 --warmup 2 --gemm-sizes $B --seed 961$i
  stamp "boundary $i"
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
