#!/usr/bin/env bash
# Session 75 (issue 51, exploration): where w5's fixed ~5 µs a launch lies — inside the kernel or around it. `ncu`
# (clocks not controlled, kernels serialized) of w5 and the 16-bit GEMM's decode kernels at two decode shapes
# (`kernel-lab w8`), against what `w8` times back to back (call 1: w5 9.9 µs at 1x4096x4096, 34.5 at 1x28672x4096).
# $OUT gets the log. Carry: scripts/slim-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s75-w5-ncu.txt" 200
M=gpu__time_duration.sum,launch__grid_size,sm__cycles_active.avg,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum
for s in 1x4096x4096 1x28672x4096; do
  T=90 run ncu --clock-control none --launch-count 40 --metrics $M -k 'regex:fp8_w5|hgemm_decode' --print-summary none \
    $C/kernel-lab w8 --shapes $s
done
gzip -9 "$L"
