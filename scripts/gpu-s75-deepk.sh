#!/usr/bin/env bash
# Session 75 (issue 48, exploration): every GEMM candidate timed (--autotune, f16, one process) on weight streams
# with deep and shallow K at 1–16 rows (the class where d2 read at 80% of the DRAM's peak against cuBLAS's 90%,
# call 5). $OUT gets the log and the tune cache. Carry: scripts/slim-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s75-deepk.txt" 300
T=280 run $C/kernel-lab --family gemm --dtype f16 --gemm-sizes 1x64128x8192,16x64128x8192,1x128256x4096,1x32000x8192,1x16384x16384 --autotune --tune-cache $OUT/tune-deepk.json
