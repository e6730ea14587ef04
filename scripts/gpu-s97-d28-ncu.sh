#!/usr/bin/env bash
# Session 97 (issue 48): where d28m128x2's time goes at 128-row shapes it runs 0.85× cuBLAS (128x3072x3072,
# 128x2560x3072) and d11/d7 at 128x4608x3072 (0.80×): ncu's full sections (clocks not controlled) of our kernel
# and cuBLAS's at each shape, then the warp-state samples per SASS instruction of d28m128x2 at 128x3072x3072.
# Carry: .carry/kernel-lab (xz).
set -uo pipefail
. scripts/device-log.sh s97-d28-ncu.txt 240
export PATH=/usr/local/cuda/bin:$PATH
NCU="ncu --clock-control none"
T=120 run $C/kernel-lab --family gemm --dtype bf16 --gemm-sizes 128x3072x3072,128x2560x3072,128x4608x3072 --reps 20 --warmup 3 --seed 9771
for cfg in d28m128x2-bf16:128x3072x3072 d11-bf16:128x4608x3072 d28m128x4-bf16:128x4608x3072; do
  c=${cfg%%:*}; s=${cfg#*:}
  T=200 run $NCU --set full -k regex:'hgemm|nvjet|sm90|cutlass|gemm' --launch-skip 2 --launch-count 6 \
    -o $OUT/$c-$s -f $C/kernel-lab --family gemm --dtype bf16 --config $c --gemm-sizes $s --reps 3 --warmup 1 --seed 9772
  timeout 120 ncu --import $OUT/$c-$s.ncu-rep --print-details all --print-units base > $OUT/$c-$s-details.txt 2>&1
  grep -E "^  [a-z_]+.*\(|Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Memory Throughput|Elapsed Cycles|Registers|Dynamic Shared|Block Size|Grid Size|Cluster Size|Achieved Occupancy|Warp Cycles Per Issued|Issue Slots Busy|Executed Ipc A" $OUT/$c-$s-details.txt >> "$L"
done
s=128x3072x3072
T=200 run $NCU --section SourceCounters --section WarpStateStats -k regex:hgemm_decode_v28 --launch-skip 4 --launch-count 1 \
  -o $OUT/d28-src -f $C/kernel-lab --family gemm --dtype bf16 --config d28m128x2-bf16 --gemm-sizes $s --reps 3 --warmup 1 --seed 9773
timeout 120 ncu --import $OUT/d28-src.ncu-rep --page source --print-source sass --csv > $OUT/d28-src-sass.csv 2>&1; echo "sass csv exit $?" >> "$L"
timeout 60 ncu --import $OUT/d28-src.ncu-rep --print-details all >> "$L" 2>&1
rm -f $OUT/*.ncu-rep; xz -9 $OUT/*.csv $OUT/*-details.txt
grep -E "^exit [1-9]" "$L" | head || true
