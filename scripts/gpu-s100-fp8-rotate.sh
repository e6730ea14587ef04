#!/usr/bin/env bash
# Session 100 (issue 48): the FP8 entry's decode shapes timed on operands rotated beyond the L2 (the new default
# at M ≤ 64, both sides) against the old timing of the same weights every launch (KERNEL_LAB_FP8_SAME_WEIGHTS=1),
# alternating, 3 processes each: the sample's fw2 shapes under 0.85× (8–16 rows, weights in the L2) and decode
# shapes beyond the L2 as controls. Written in session 100, which was lent no GPU: not yet run. Carry:
# scripts/slim-carry.sh (the suite binary).
set -uo pipefail
. scripts/device-log.sh "s100-fp8-rotate.txt" 300
S=8x5120x6912,16x5120x6912,8x4096x7168,16x3584x4096,8x2048x8192,1x4096x4096,1x6144x4096,8x28672x4096,16x4096x14336,32x5120x13824
for i in 1 2 3; do
  echo "== set fp8-rotate process $i rotated" | tee -a "$L"
  T=150 run $C/kernel-lab --family fp8 --entry --gemm-sizes $S --reps 10 --warmup 2 --seed 100$i
  echo "== set fp8-rotate process $i same-weights" | tee -a "$L"
  T=150 run env KERNEL_LAB_FP8_SAME_WEIGHTS=1 $C/kernel-lab --family fp8 --entry --gemm-sizes $S --reps 10 --warmup 2 --seed 100$i
  stamp "process $i"
done
grep -E "^summary|under 0.85" "$L" | tee -a "$OUT/summary.txt"
xz -9 -f "$L"
