#!/usr/bin/env bash
# Session 89, issue 48, third FP8 call: the calibration with f21's own cost (its cluster split's estimate priced
# by a fixed cost and a K tile fitted to f21x2 / f21x4 timings): the GPU test, then `kernel-lab calibrate --dtype
# fp8` in 3 separate processes.
set -uo pipefail
. scripts/device-log.sh "s89-fp8cal3.txt" 200
T=300 run $C/tests/fp8 the_fp8_calibration gemm_fp8_runs_the_default f21_is_the_default --nocapture --test-threads 1
for i in 1 2 3; do
  T=150 run $C/kernel-lab calibrate --dtype fp8 --out "$OUT/fp8-cost3-p$i.tsv" --samples "$OUT/fp8-samples3-p$i.tsv"
  stamp "calibrate $i"
done
grep -E "^==|^exit [^0]|^t\+|calibrated|skipped|test result|FP8 calibration|panicked" "$L" | head -40
(cd "$OUT" && tar cJf /tmp/s89-fp8cal3.tar.xz . && find . -type f -delete && mv /tmp/s89-fp8cal3.tar.xz .)
