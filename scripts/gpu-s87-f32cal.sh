#!/usr/bin/env bash
# Session 87, issue 48: every family of f32 step at a corpus sample (`shapes.py gemm --sample 120 --seed 8787`, the 93
# distinct shapes of at most 1.2e11 multiply-adds), for the f32 choice's cost model: rows ≤ 256 (SMALL) v11, v23, v24,
# v33, v34; rows > 256 (LARGE) v11, v23, v24 (v33 and v34 read B again every 4 or 16 rows). Chunks of CHUNK shapes,
# 3 processes a chunk back to back, the next chunk only if the last one's time fits before DEADLINE; FIRST=N starts at
# chunk N. JSON per process, packed into one archive.
set -uo pipefail
CHUNK=${CHUNK:-25}; DEADLINE=${DEADLINE:-520}
. scripts/device-log.sh "s87-f32cal.txt" 200
R=results/2026-12-02-h200-session87
rm -f /tmp/f32c-*
split -l $CHUNK -d $R/f32-cal-8787-small.tsv /tmp/f32c-s-
split -l $CHUNK -d $R/f32-cal-8787-large.tsv /tmp/f32c-l-
n=0; last=0
for f in /tmp/f32c-s-* /tmp/f32c-l-*; do
  c=$n; n=$((n + 1))
  [ $c -lt ${FIRST:-0} ] && continue
  start=$(date +%s)
  if [ $(( start - t0 + last )) -gt $DEADLINE ]; then stamp "stop before chunk $c (last chunk ${last}s)"; break; fi
  steps=v11,v23,v24,v33,v34; [[ $f == *-l-* ]] && steps=v11,v23,v24
  for i in 1 2 3; do
    echo "== set f32cal chunk $c process $i" | tee -a "$L"
    T=200 run $C/kernel-lab --family sgemm --steps $steps --shapes-file $f --reps 10 --warmup 2 --seed 87$c$i --json "$OUT/f32cal-c$c-p$i.json" --out /tmp/r
  done
  last=$(( $(date +%s) - start ))
  stamp "chunk $c (${last}s)"
done
grep -E "^==|^exit [^0]|^t\+" "$L" | head -60
(cd "$OUT" && tar cJf /tmp/s87-f32cal.tar.xz . && find . -type f -delete && mv /tmp/s87-f32cal.tar.xz .)
