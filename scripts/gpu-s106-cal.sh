#!/usr/bin/env bash
# Session 106, issue 48: the f32 model and the FP8 choice's costs on an H100, where the shipped constants are the
# H200's. The calibration GPU tests; `kernel-lab calibrate --dtype f32` and `--dtype fp8`, 3 separate processes each
# (written with --out only: this script then removes ~/.cache/kernel-lab so nothing later reads them); then the
# held-out sets session 89 timed on an H200 (no fit of either GPU saw them): every f32 family at the 58 shapes of
# scripts/f32-hold-9292-{small,large}.tsv (PART=f32) or every costed FP8 step (f27n192 added) at the 36 few-tile
# shapes of scripts/fp8-hold-9393.tsv (PART=fp8, chunks FROM..), 3 processes a chunk, for `kernel-lab rank
# --f32-times` / `--fp8-times` with the shipped (H200) costs against these calibrations. Chunks until DEADLINE.
# Carry: scripts/slim-carry.sh gpu fp8
set -uo pipefail
PART=${PART:-f32}; FROM=${FROM:-0}; DEADLINE=${DEADLINE:-520}
. scripts/device-log.sh "s106-$PART.txt" 200
rm -rf ~/.cache/kernel-lab
if [ "$PART" = f32 ]; then
  T=200 run $C/tests/gpu the_f32_calibration --nocapture --test-threads 1
  stamp "f32 gpu test"
  for i in 1 2 3; do
    T=150 run $C/kernel-lab calibrate --dtype f32 --out "$OUT/f32-cost-h100-p$i.tsv" --samples "$OUT/f32-samples-h100-p$i.tsv"
    stamp "calibrate f32 $i"
  done
  if [ "${FP8CAL:-1}" = 1 ]; then
    T=300 run $C/tests/fp8 the_fp8_calibration --nocapture --test-threads 1
    stamp "fp8 gpu test"
    for i in 1 2 3; do
      T=150 run $C/kernel-lab calibrate --dtype fp8 --out "$OUT/fp8-cost-h100-p$i.tsv" --samples "$OUT/fp8-samples-h100-p$i.tsv"
      stamp "calibrate fp8 $i"
    done
  fi
  rm -rf ~/.cache/kernel-lab
  rm -f /tmp/f32h-*
  split -l 21 -d scripts/f32-hold-9292-small.tsv /tmp/f32h-s-
  split -l 21 -d scripts/f32-hold-9292-large.tsv /tmp/f32h-l-
  files=$(ls /tmp/f32h-s-* /tmp/f32h-l-*)
else
  rm -f /tmp/fp8h-*
  split -l 12 -d scripts/fp8-hold-9393.tsv /tmp/fp8h-
  files=$(ls /tmp/fp8h-* | tail -n +$((FROM + 1)))
fi
n=$FROM; last=0
for f in $files; do
  c=$n; n=$((n + 1))
  start=$(date +%s)
  if [ $(( start - t0 + last )) -gt $DEADLINE ]; then stamp "stop before chunk $c (last chunk ${last}s)"; break; fi
  for i in 1 2 3; do
    echo "== set ${PART}hold chunk $c process $i" | tee -a "$L"
    if [ "$PART" = f32 ]; then
      steps=v11,v23,v24,v33,v34; [[ $f == *-l-* ]] && steps=v11,v23,v24
      T=200 run $C/kernel-lab --family sgemm --steps $steps --shapes-file $f --reps 10 --warmup 2 --seed 106$c$i --json "$OUT/f32hold-c$c-p$i.json" --out /tmp/r
    else
      T=200 run $C/kernel-lab --family fp8 --steps f14,f21x2,f21x3,f21x4,f21x6,f22,f25,fw2,f27n192,f3,f23,fwb --shapes-file $f --reps 10 --warmup 2 --seed 106$c$i --json "$OUT/fp8hold-c$c-p$i.json" --out /tmp/r
    fi
  done
  last=$(( $(date +%s) - start ))
  stamp "chunk $c (${last}s)"
done
grep -E "^==|^exit [^0]|^t\+|calibrated|skipped|test result|panicked" "$L" | head -80
(cd "$OUT" && tar cJf /tmp/s106-$PART.tar.xz . && find . -type f -delete && mv /tmp/s106-$PART.tar.xz .)
