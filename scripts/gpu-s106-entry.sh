#!/usr/bin/env bash
# Session 106, issue 48: the f32 and FP8 entry points on an H100 with the constants shipped for it (f32: the
# H100's since this session; FP8: the H200's) on fresh corpus draws no calibration or ranking saw:
# `shapes.py gemm --sample 40 --seed 10606` (f32, against cublasSgemm) and `--seed 10607` (FP8 `--entry`: the
# per-tensor and block steps against cuBLASLt), CHUNK shapes a chunk, 3 processes a chunk, until DEADLINE.
# No calibration is kept on the machine (~/.cache/kernel-lab removed first), so plans take the shipped constants.
# Carry: scripts/slim-carry.sh
set -uo pipefail
CHUNK=${CHUNK:-20}; DEADLINE=${DEADLINE:-480}
. scripts/device-log.sh "s106-entry.txt" 200
rm -rf ~/.cache/kernel-lab /tmp/e106-*
split -l $CHUNK -d scripts/s106-sample-40-seed10606.tsv /tmp/e106-f32-
split -l $CHUNK -d scripts/s106-sample-40-seed10607.tsv /tmp/e106-fp8-
last=0
for f in $(ls /tmp/e106-f32-* | head -1) $(ls /tmp/e106-fp8-* | head -1) $(ls /tmp/e106-f32-* | tail -n +2) $(ls /tmp/e106-fp8-* | tail -n +2); do
  fam=$(basename $f | cut -d- -f2); c=${f##*-}
  start=$(date +%s)
  if [ $(( start - t0 + last )) -gt $DEADLINE ]; then stamp "stop before $fam chunk $c (last chunk ${last}s)"; break; fi
  for i in 1 2 3; do
    echo "== set s106-$fam chunk $c process $i" | tee -a "$L"
    if [ $fam = fp8 ]; then
      T=200 run $C/kernel-lab --family fp8 --entry --reps 10 --warmup 2 --shapes-file $f --seed 1067$c$i --json "$OUT/fp8-c$c-p$i.json" --out /tmp/r
    else
      T=200 run $C/kernel-lab --family gemm --dtype f32 --reps 10 --warmup 2 --shapes-file $f --seed 1066$c$i --json "$OUT/f32-c$c-p$i.json" --out /tmp/r
    fi
  done
  last=$(( $(date +%s) - start ))
  stamp "$fam chunk $c (${last}s)"
done
grep -E "^exit [^0]|panicked|FAILED" "$L" | head
(cd "$OUT" && tar cJf /tmp/s106-entry.tar.xz . && find . -type f -delete && mv /tmp/s106-entry.tar.xz .)
