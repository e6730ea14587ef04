#!/usr/bin/env bash
# Session 76 (issue 48): h8/f21's cluster sum with every DSMEM load of a batch in flight before the first add.
# Tests (every HGEMM step; the FP8 steps and f21), memcheck/racecheck of h8 at one shape, then the old build
# (.carry/kernel-lab-old: 39f99d1, the sum one row at a time) and the new one alternating process by process,
# 3 each, at one-tile and few-tile shapes; a calibration of the new build. Carry: scripts/slim-carry.sh gpu fp8
# plus the old binary as .carry/kernel-lab-old.xz.
set -uo pipefail
. scripts/device-log.sh s76-h8-sum.txt 300
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; }
T=200 run $C/tests/gpu every_hgemm_step_matches_the_f64_reference_or_names_its_constraint --test-threads 1
T=200 run $C/tests/fp8 fp8_steps_match_the_dequantized_reference f21_is_the_default --test-threads 1
stamp tests
T=120 run compute-sanitizer --tool memcheck $C/kernel-lab --family hgemm --steps h8x2,h8x3,h8x8 --check --gemm-sizes 300x520x192,130x264x1024
T=200 run compute-sanitizer --tool racecheck $C/kernel-lab --family hgemm --steps h8x3 --check --gemm-sizes 130x264x256
stamp sanitizers
SH=256x256x512,256x256x4096,128x3072x4096,128x1536x2048,256x1536x2048,128x4096x11008,128x5120x13824,512x1024x1024,128x768x16384
for i in 1 2 3; do
  for b in kernel-lab-old kernel-lab; do
    T=150 run $C/$b --family hgemm --steps h8x2,h8x3,h8x4,h8x6,h8x8,d9 --gemm-sizes $SH --reps 20 --warmup 3 --seed 776$i
  done
  stamp "round $i"
done
T=200 run $C/kernel-lab calibrate --out $OUT/cost-h200-s76b.tsv --samples $OUT/cal-samples-s76b.tsv
stamp calibrate
grep -E "^exit [1-9]|panicked|FAILED" "$L" | head || true
