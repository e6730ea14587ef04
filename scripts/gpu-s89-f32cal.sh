#!/usr/bin/env bash
# Session 89, issue 48: the f32 GPU tests (the entry point, the calibration), `kernel-lab calibrate --dtype f32` in 3 separate processes (its time, its constants, its
# timings), then every f32 family at 58 shapes of a fresh corpus sample no fit saw (`shapes.py gemm --sample 80
# --seed 9292`, the distinct shapes of at most 1.2e11 multiply-adds not in session 87's calibration sample:
# scripts/f32-hold-9292-{small,large}.tsv; rows ≤ 256 v11, v23, v24, v33, v34, above v11, v23, v24), 3 processes
# a chunk, for `kernel-lab rank --f32-times` against each calibration. Chunks of CHUNK shapes until DEADLINE.
set -uo pipefail
CHUNK=${CHUNK:-21}; DEADLINE=${DEADLINE:-500}
. scripts/device-log.sh "s89-f32cal.txt" 200
T=200 run $C/tests/gpu the_f32 --nocapture --test-threads 1
stamp "gpu tests"
for i in 1 2 3; do
  T=150 run $C/kernel-lab calibrate --dtype f32 --out "$OUT/f32-cost-p$i.tsv" --samples "$OUT/f32-samples-p$i.tsv"
  stamp "calibrate $i"
done
rm -f /tmp/f32h-*
split -l $CHUNK -d scripts/f32-hold-9292-small.tsv /tmp/f32h-s-
split -l $CHUNK -d scripts/f32-hold-9292-large.tsv /tmp/f32h-l-
n=0; last=0
for f in /tmp/f32h-s-* /tmp/f32h-l-*; do
  c=$n; n=$((n + 1))
  start=$(date +%s)
  if [ $(( start - t0 + last )) -gt $DEADLINE ]; then stamp "stop before chunk $c (last chunk ${last}s)"; break; fi
  steps=v11,v23,v24,v33,v34; [[ $f == *-l-* ]] && steps=v11,v23,v24
  for i in 1 2 3; do
    echo "== set f32hold chunk $c process $i" | tee -a "$L"
    T=200 run $C/kernel-lab --family sgemm --steps $steps --shapes-file $f --reps 10 --warmup 2 --seed 89$c$i --json "$OUT/f32hold-c$c-p$i.json" --out /tmp/r
  done
  last=$(( $(date +%s) - start ))
  stamp "chunk $c (${last}s)"
done
grep -E "^==|^exit [^0]|^t\+|calibrated|skipped" "$L" | head -60
(cd "$OUT" && tar cJf /tmp/s89-f32cal.tar.xz . && find . -type f -delete && mv /tmp/s89-f32cal.tar.xz .)
