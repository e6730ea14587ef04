#!/usr/bin/env bash
# Session 75 (issue 48, exploration): which kernels cuBLAS runs on the classes of session 75's sample under 0.90×
# (few column tiles at M = 128, a 1024-row prefill, h11's region, a deep-K weight stream, a tiny decode) against
# the entry point's, with `ncu` (clocks not controlled): each launch's duration, grid, block and SM-active
# cycles. One process. $OUT gets the log. Carry: scripts/slim-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s75-ncu.txt" 400
M=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__cluster_dim_x,launch__cluster_dim_y,sm__cycles_active.avg,dram__throughput.avg.pct_of_peak_sustained_elapsed
S=${S:-128x2048x2048,128x3072x4096,1024x1024x4096,1024x5120x8192,1x64128x8192,16x768x768}
T=380 run ncu --clock-control none --metrics $M -k 'regex:hgemm|sm90|cutlass|gemm|nvjet|gemv|Kernel' --print-summary none \
  $C/kernel-lab --family gemm --dtype f16 --gemm-sizes $S --reps 3 --warmup 1
gzip -9 "$L"
