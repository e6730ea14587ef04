#!/usr/bin/env bash
# Session 76 (issue 48): where h8's ~9 µs at one K tile a split goes. ncu's kernel time (clocks not controlled)
# of h8x2/x4/x8, h6s4, d16 at one-tile shapes against the suite's timed median, then the warp-state samples
# per SASS instruction of h8x8 at 256x256x512 and 256x256x4096 (SourceCounters). Carry: scripts/slim-carry.sh.
set -uo pipefail
. scripts/device-log.sh s76-h8-ncu.txt 240
export PATH=/usr/local/cuda/bin:$PATH
NCU="ncu --clock-control none"
[ -n "${SKIP_TIMES:-}" ] || T=120 run $C/kernel-lab --family hgemm --steps h8x2,h8x4,h8x8,h6s4,d16,d9 --gemm-sizes 256x256x512,256x256x4096,128x3072x4096 --reps 20 --warmup 3 --seed 7764
[ -n "${SKIP_TIMES:-}" ] || T=240 run $NCU --metrics gpu__time_duration.sum,sm__cycles_active.max,launch__grid_size,launch__cluster_dim_x -k regex:'hgemm|nvjet|sm90|cutlass|gemm' \
  $C/kernel-lab --family hgemm --steps h8x2,h8x4,h8x8,h6s4,d16,d9 --gemm-sizes 256x256x512,256x256x4096,128x3072x4096 --reps 3 --warmup 1 --seed 7765
for s in 256x256x512 256x256x4096; do
  T=200 run $NCU --section SourceCounters --section WarpStateStats --section LaunchStats -k regex:hgemm_tma_v8_x8 --launch-skip 2 --launch-count 1 \
    -o $OUT/h8x8-$s -f $C/kernel-lab --family hgemm --steps h8x8 --gemm-sizes $s --reps 3 --warmup 1 --seed 7766
  timeout 120 ncu --import $OUT/h8x8-$s.ncu-rep --page source --print-source sass --csv > $OUT/h8x8-$s-sass.csv 2>&1; echo "sass csv exit $?" >> "$L"
  timeout 60 ncu --import $OUT/h8x8-$s.ncu-rep --print-details all >> "$L" 2>&1
  rm -f $OUT/h8x8-$s.ncu-rep; xz -9 $OUT/h8x8-$s-sass.csv
done
grep -E "^exit [1-9]" "$L" | head || true
