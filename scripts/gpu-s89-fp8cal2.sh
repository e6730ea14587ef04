#!/usr/bin/env bash
# Session 89, issue 48, second FP8 call: `kernel-lab calibrate --dtype fp8` with f25's shallow-K shapes added, in 3
# separate processes, then the held-out shapes the first call did not reach (scripts/fp8-hold-9393.tsv from line
# 25: 128–4096 rows), every costed step and f21's cluster sizes, 3 processes.
set -uo pipefail
. scripts/device-log.sh "s89-fp8cal2.txt" 200
T=300 run $C/tests/fp8 the_fp8_calibration --nocapture --test-threads 1
for i in 1 2 3; do
  T=150 run $C/kernel-lab calibrate --dtype fp8 --out "$OUT/fp8-cost2-p$i.tsv" --samples "$OUT/fp8-samples2-p$i.tsv"
  stamp "calibrate $i"
done
tail -n +25 scripts/fp8-hold-9393.tsv > /tmp/fp8h-rest.tsv
for i in 1 2 3; do
  echo "== set fp8hold chunk 2 process $i" | tee -a "$L"
  T=200 run $C/kernel-lab --family fp8 --steps f14,f21x2,f21x3,f21x4,f21x6,f22,f25,fw2,f3,f23,fwb --shapes-file /tmp/fp8h-rest.tsv --reps 10 --warmup 2 --seed 892$i --json "$OUT/fp8hold-c2-p$i.json" --out /tmp/r
  stamp "chunk 2 process $i"
done
grep -E "^==|^exit [^0]|^t\+|calibrated|skipped|test result|FP8 calibration|panicked" "$L" | head -40
(cd "$OUT" && tar cJf /tmp/s89-fp8cal2.tar.xz . && find . -type f -delete && mv /tmp/s89-fp8cal2.tar.xz .)
