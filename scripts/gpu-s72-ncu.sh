#!/usr/bin/env bash
# Session 72 (issue 48): where FP8's small-shape floor goes. The fp8 GPU tests; then `ncu` (clocks not
# controlled) of f14, f21x4 and cuBLASLt's kernels at 128x1024x1024, 256x768x1536 and 128x3072x4096: each
# kernel's duration, grid, cluster, block, shared memory and registers — beside the event-timed medians of
# call 1, whose gap to the duration is launch and setup. $OUT gets the log.
set -uo pipefail
. scripts/device-log.sh "s72-ncu.txt" 300
[ "${TESTS:-1}" = 1 ] && run $C/tests/fp8 --test-threads=1
M=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__cluster_dim_x,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static,launch__registers_per_thread,sm__cycles_active.avg,smsp__cycles_active.avg
for s in 128x1024x1024 256x768x1536 128x3072x4096; do
  T=200 run ncu --clock-control none --metrics $M -k 'regex:fp8_gemm_v(14|21)|sm90|cutlass|gemm|nvjet|Kernel' --print-summary none \
    $C/kernel-lab --family fp8 --steps fp8:f14,fp8:f21x4 --gemm-sizes $s --reps 5 --warmup 2
done
