#!/usr/bin/env bash
# Session 92 (issue 48): `kernel-lab calibrate --dtype fp8` now also times f14 and f27's three widths over full
# rounds (8192×7680×4096) and fits f27's speeds per unit of work in the wave model — 3 processes, each its cost
# file and samples; then the FP8 GPU tests.
set -uo pipefail
. scripts/device-log.sh "s92-f27cal.txt" 300
for i in 1 2 3; do
  run $C/kernel-lab calibrate --dtype fp8 --out "$OUT/fp8-cost-$i.tsv" --samples "$OUT/fp8-samples-$i.tsv"
  stamp "calibration $i"
done
run $C/tests/fp8 --test-threads=1
grep -E "^==|^exit|test result|FAILED|panicked|calibrated|skipped|t\+" "$L" | head -60
grep -h "^f27\|^f14\|^# source" $OUT/fp8-cost-*.tsv
grep -h "^f14-full\|^f27" $OUT/fp8-samples-*.tsv
