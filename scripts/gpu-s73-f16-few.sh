#!/usr/bin/env bash
# Session 73 (issue 48, exploration): why the 16-bit few-tile class trails cuBLAS where FP8's f22 now leads.
# One process each: the HGEMM candidates d16, d25, d4, d7, h8x4 at four few-tile shapes, each interleaved with
# cuBLAS; f22 (FP8, per tensor) at the same shapes; `ncu` (clocks not controlled) durations and SM-active cycles
# of d16, d25 and cuBLAS's kernels at two of them. $OUT gets the log.
set -uo pipefail
. scripts/device-log.sh "s73-f16-few.txt" 300
S=256x768x1536,256x2048x1024,128x3072x4096,128x1024x1024
T=200 run $C/kernel-lab --family hgemm --steps hgemm:d16,hgemm:d25,hgemm:d4,hgemm:d7,hgemm:h8x4 --gemm-sizes $S
T=200 run $C/kernel-lab --family fp8 --steps fp8:f22 --gemm-sizes $S
M=gpu__time_duration.sum,launch__grid_size,launch__block_size,sm__cycles_active.avg,sm__cycles_active.max,smsp__cycles_active.avg
for s in 256x768x1536 256x2048x1024; do
  T=200 run ncu --clock-control none --metrics $M -k 'regex:hgemm_decode_v(16|25)|sm90|cutlass|gemm|nvjet|Kernel' --print-summary none \
    $C/kernel-lab --family hgemm --steps hgemm:d16,hgemm:d25 --gemm-sizes $s --reps 5 --warmup 2
done
gzip -9 "$L"
