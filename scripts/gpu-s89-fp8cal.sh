#!/usr/bin/env bash
# Session 89, issue 48: the FP8 calibration's GPU test and the entry's default-step test, `kernel-lab calibrate
# --dtype fp8` in 3 separate processes, then every costed FP8 step and f21's cluster sizes (f14, f21x2/x3/x4/x6,
# f22, f25, fw2; block f3, f23, fwb) at 36 few-tile shapes of a fresh corpus sample (`shapes.py gemm --sample 160
# --seed 9393`, f14's tiles under one round: scripts/fp8-hold-9393.tsv), 3 processes a chunk, for `kernel-lab rank
# --fp8-times` against each calibration. Chunks of CHUNK shapes until DEADLINE.
set -uo pipefail
CHUNK=${CHUNK:-12}; DEADLINE=${DEADLINE:-520}
. scripts/device-log.sh "s89-fp8cal.txt" 200
T=300 run $C/tests/fp8 the_fp8_calibration gemm_fp8_runs_the_default --nocapture --test-threads 1
stamp "gpu tests"
for i in 1 2 3; do
  T=150 run $C/kernel-lab calibrate --dtype fp8 --out "$OUT/fp8-cost-p$i.tsv" --samples "$OUT/fp8-samples-p$i.tsv"
  stamp "calibrate $i"
done
rm -f /tmp/fp8h-*
split -l $CHUNK -d scripts/fp8-hold-9393.tsv /tmp/fp8h-
n=0; last=0
for f in /tmp/fp8h-*; do
  c=$n; n=$((n + 1))
  start=$(date +%s)
  if [ $(( start - t0 + last )) -gt $DEADLINE ]; then stamp "stop before chunk $c (last chunk ${last}s)"; break; fi
  for i in 1 2 3; do
    echo "== set fp8hold chunk $c process $i" | tee -a "$L"
    T=200 run $C/kernel-lab --family fp8 --steps f14,f21x2,f21x3,f21x4,f21x6,f22,f25,fw2,f3,f23,fwb --shapes-file $f --reps 10 --warmup 2 --seed 89$c$i --json "$OUT/fp8hold-c$c-p$i.json" --out /tmp/r
  done
  last=$(( $(date +%s) - start ))
  stamp "chunk $c (${last}s)"
done
grep -E "^==|^exit [^0]|^t\+|calibrated|skipped|test result|FP8 calibration|panicked" "$L" | head -60
(cd "$OUT" && tar cJf /tmp/s89-fp8cal.tar.xz . && find . -type f -delete && mv /tmp/s89-fp8cal.tar.xz .)
