#!/usr/bin/env bash
# Session 84, issue 48: an entry point against its library over session 83's fresh corpus sample
# (`shapes.py gemm --sample 200 --seed 8383`, 194 distinct shapes), FAMILY fp8 (`--family fp8 --entry`: the library's
# per-tensor and block step per shape against cuBLASLt) or f32 (`--family gemm --dtype f32` against cublasSgemm).
# The sample in CHUNK-shape chunks, each chunk 3 processes back to back (fresh inputs, seeds per chunk and process),
# so that a call cut short by DEADLINE seconds still leaves whole chunks with 3 processes. JSON per process; output
# packed into one archive. Medians: scripts/fp8-entry-medians.py (fp8), scripts/entry-medians.py on the log (f32).
set -uo pipefail
FAMILY=${FAMILY:-fp8}; CHUNK=${CHUNK:-40}; DEADLINE=${DEADLINE:-520}
. scripts/device-log.sh "s84-sample-$FAMILY.txt" 200
xz -dc results/2026-12-02-h200-session83/sample-200-seed8383.tsv.xz > /tmp/sample-8383.tsv
rm -f /tmp/chunk-*; split -l $CHUNK -d /tmp/sample-8383.tsv /tmp/chunk-
last=0
for f in /tmp/chunk-*; do
  c=${f##*-}; c=$((10#$c))
  [ $c -lt ${FIRST:-0} ] && continue   # FIRST=N: from chunk N on (the earlier ones run in another call)
  start=$(date +%s)
  # The next chunk only if the last one's time fits before the deadline.
  if [ $(( start - t0 + last )) -gt $DEADLINE ]; then stamp "stop before chunk $c (last chunk ${last}s)"; break; fi
  for i in 1 2 3; do
    echo "== set sample-8383-$FAMILY chunk $c process $i" | tee -a "$L"
    if [ $FAMILY = fp8 ]; then
      T=200 run $C/kernel-lab --family fp8 --entry --reps 10 --warmup 2 --shapes-file $f --seed 84$c$i --json "$OUT/fp8-c$c-p$i.json" --out /tmp/r
    else
      T=200 run $C/kernel-lab --family gemm --dtype f32 --reps 10 --warmup 2 --shapes-file $f --seed 84$c$i --json "$OUT/f32-c$c-p$i.json" --out /tmp/r
    fi
  done
  last=$(( $(date +%s) - start ))
  stamp "chunk $c (${last}s)"
done
grep -E "^==|^exit|^t\+|^summary|under 0.85" "$L" | head -80
(cd "$OUT" && tar cJf /tmp/s84-sample-$FAMILY.tar.xz . && find . -type f -delete && mv /tmp/s84-sample-$FAMILY.tar.xz .)
