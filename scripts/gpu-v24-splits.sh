#!/usr/bin/env bash
# Session 61, call 6: v24 (64×128 tiles, three blocks per SM, split-K by red.global.add.v4) at the f32
# corpus's compute-bound outliers with K split 1–6 ways (KERNEL_LAB_SGEMM_FIXED_SPLIT=b,256 gives
# ⌊b·132/tiles⌋ splits), each against cublasSgemm interleaved, one process per point: does a split that
# fills the last wave lift them past 0.85×? Carry: scripts/slim-carry.sh gpu.
set -uo pipefail
. scripts/device-log.sh v24-splits.txt 120
sweep() {  # shape, then the b for 1..6 splits
  local s=$1; shift; local n=1
  for b in "$@"; do
    T=120 run env KERNEL_LAB_SGEMM_FIXED_SPLIT=$b,256 $C/kernel-lab --family gemm --dtype f32 --config v24 --gemm-sizes $s --reps 10 --warmup 2
    n=$((n+1))
  done
}
sweep 64x57344x8192 4 7 11 14 17 21
sweep 128x10240x8192 2 3 4 5 7 8
sweep 512x3584x14336 2 4 6 7 9 11
sweep 64x64128x3072 4 8 12 16
grep -E "^==|^exit|^v24 |K split" "$L" | head -120 || true
