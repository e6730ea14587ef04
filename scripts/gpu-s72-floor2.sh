#!/usr/bin/env bash
# Session 72 (issue 48): the ~2 µs a one-tile Hopper GEMM pays beyond cuBLASLt (f14 6.7 µs at 128x256x128
# against 4.7; h6 6.55 against 4.4 at 128x256x64 — call 4; session 13 ruled out tensor maps in global memory,
# the final wait and the shared-memory carve-out). `ncu --set full` (clocks not controlled) of one f14 launch
# and one cuBLASLt launch at 128x256x128, printed as details and as SASS with per-instruction stall samples.
# $OUT gets the log and the printed pages (gzipped). Call 6: CACHE=none SI=0 (the L2 kept warm as in the timed runs, a
# warp sample every 32 cycles).
set -uo pipefail
. scripts/device-log.sh "s72-floor2.txt" 300
for k in ${KERNELS:-fp8_gemm_v14 nvjet}; do
  T=200 run ncu --clock-control none --set full --import-source no --cache-control ${CACHE:-all} --warp-sampling-interval ${SI:-auto} -k "regex:$k" --launch-skip 3 --launch-count 1 -o /tmp/$k -f \
    $C/kernel-lab --family fp8 --steps fp8:f14 --gemm-sizes 128x256x128 --reps 5 --warmup 2
  ncu --import /tmp/$k.ncu-rep --page details > $OUT/$k-details.txt 2>&1
  ncu --import /tmp/$k.ncu-rep --page source --print-source sass --csv > $OUT/$k-sass.csv 2>&1
  ncu --import /tmp/$k.ncu-rep --page raw --csv > $OUT/$k-raw.csv 2>&1
  gzip -9 $OUT/$k-sass.csv $OUT/$k-raw.csv
done
ls -la $OUT | tee -a "$L"
