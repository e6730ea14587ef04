#!/usr/bin/env bash
# f27n128's first GPU run (issue 48; built in session 106, not yet run): the FP8 GPU test that runs every FP8 step
# on ragged shapes against the f64 reference (f27n128 among them), memcheck and racecheck of f27n128 forced, then
# f27n128 beside the steps the choice takes at few-tile shapes (f21x2, f21x4, f22, f27n192, f14; cuBLASLt in the
# same run) at the 64-4096-row shapes of session 89's held-out few-tile set (scripts/fp8-hold-9393.tsv) plus the
# fresh draw's 256x4096x4096 (session 106: f22 0.81x cuBLASLt), 3 processes — for its README line: keep it (and
# weigh it in the choice) only if it is the fastest at several shapes; else remove it.
# Carry: scripts/slim-carry.sh fp8
set -uo pipefail
. scripts/device-log.sh f27n128.txt 300
T=300 run $C/tests/fp8 --test-threads 1 fp8_steps_match_the_dequantized_reference
stamp tests
for tool in memcheck racecheck; do
  T=120 run compute-sanitizer --tool $tool --error-exitcode 9 $C/kernel-lab --family fp8 --steps f27n128 --gemm-sizes 130x264x400,300x520x1024,512x3072x4096 --reps 2 --warmup 1
done
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard" "$L" | tail -6
stamp sanitizers
S=$( (awk -F'x' '$1>=64 {print $1"x"$2"x"$3}' scripts/fp8-hold-9393.tsv | cut -f1; echo 256x4096x4096) | paste -sd,)
for i in 1 2 3; do
  echo "== set f27n128 process $i" | tee -a "$L"
  T=200 run $C/kernel-lab --family fp8 --steps f27n128,f21x2,f21x4,f22,f27n192,f14 --gemm-sizes $S --reps 10 --warmup 2 --seed 1280$i --json "$OUT/f27n128-p$i.json" --out /tmp/r
  stamp "process $i"
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
