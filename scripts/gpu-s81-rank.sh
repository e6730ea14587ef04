#!/usr/bin/env bash
# Session 81 (issue 48): every candidate timed (`--autotune`, bf16, one process) on 100 shapes drawn with
# random.seed(8183) from the 200-shape sample of seed 8181 (results/2026-12-02-h200-session81/rank-100.txt),
# for `kernel-lab rank --tune-cache`: how often the entry's pick (and the model's, the rules') is within 5%
# of the fastest candidate on corpus shapes.
set -uo pipefail
. scripts/device-log.sh s81-rank.txt 420
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; }
S=$(paste -sd, results/2026-12-02-h200-session81/rank-100.txt)
T=420 run $C/kernel-lab --family gemm --dtype bf16 --gemm-sizes $S --autotune --tune-cache $OUT/tune-rank100.json
stamp autotune
$C/kernel-lab rank --tune-cache $OUT/tune-rank100.json > $OUT/rank100.txt 2>&1
tail -3 $OUT/rank100.txt | tee -a "$L"
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
