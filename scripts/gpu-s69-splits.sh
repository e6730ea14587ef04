#!/usr/bin/env bash
# Session 69 (issue 48): how the persistent split-K steps (d7, d19, …) split K, and step d25. TESTS=1: the HGEMM
# reference test under each split rule in MODES_TEST; then ROUNDS rounds of `--family hgemm --steps STEPS`
# on SHAPES (a corpus tsv) under KERNEL_LAB_TMA_SPLITS = each of MODES (fixed counts; `floor` and `balanced`
# were rules of a9272e1, where this script first ran; an unknown value now means the library's rule),
# alternating; CAL=1 `kernel-lab calibrate`; RANK=1 every candidate timed on SHAPES (--autotune); ENTRYCAL rounds of
# the entry with the shipped constants and with CAL's, alternating; ENTRY rounds of the entry point (`--family gemm`) under floor and balanced, alternating.
# Everything lands in $OUT/s69.tar.gz (the device returns at most 8 files). Carry: `CARRY_TESTS=gpu scripts/backward-carry.sh`, or .carry/kl-<v>.xz for AB.
set -uo pipefail
. scripts/device-log.sh "s69.txt" 400
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; }
pack() { (cd "$OUT" && tar czf /tmp/s69.tar.gz . && rm -rf ./* && mv /tmp/s69.tar.gz .); }
trap pack EXIT
export XDG_CACHE_HOME=/tmp/xdg
SH=${SHAPES:-}
[ -n "$SH" ] && sizes=$(grep -v '^#' "$SH" | cut -f1 | paste -sd, -)
if [ "${TESTS:-0}" = 1 ]; then
  for m in ${MODES_TEST:-balanced 5}; do
    KERNEL_LAB_TMA_SPLITS=$m T=300 run $C/tests/gpu every_hgemm_step split_k_steps --test-threads=1; stamp "tests $m"
  done
fi
for i in $(seq 1 ${ROUNDS:-0}); do
  for m in ${MODES:-floor balanced}; do
    KERNEL_LAB_TMA_SPLITS=$m run $C/kernel-lab --family hgemm --dtype f16 --steps ${STEPS:-d7,d19} --gemm-sizes "$sizes" --json "$OUT/sweep-$m-$i.json"
  done
  stamp "sweep round $i"
done
for i in $(seq 1 ${ENTRY:-0}); do
  for m in floor balanced; do
    KERNEL_LAB_TMA_SPLITS=$m run $C/kernel-lab --family gemm --dtype f16 --shapes-file "$SH" --json "$OUT/entry-$m-$i.json"
  done
  stamp "entry round $i"
done
if [ "${CAL:-0}" = 1 ]; then
  run $C/kernel-lab calibrate --out "$OUT/cost.tsv" --samples "$OUT/cal-samples.tsv"; stamp calibrate
fi
if [ "${RANK:-0}" = 1 ]; then
  run $C/kernel-lab --family gemm --dtype f16 --autotune --tune-cache "$OUT/tune.json" --shapes-file "$SH"; stamp rank
fi
for i in $(seq 1 ${ENTRYCAL:-0}); do
  run $C/kernel-lab --family gemm --dtype f16 --shapes-file "$SH" --json "$OUT/entry-shipped-$i.json"
  KERNEL_LAB_COST_FILE="$OUT/cost.tsv" run $C/kernel-lab --family gemm --dtype f16 --shapes-file "$SH" --json "$OUT/entry-cal-$i.json"
  stamp "entry shipped/calibrated round $i"
done
# AB="old new" ABROUNDS=3 AB_SHAPES=F: the entry point of .carry/kl-<v> for each v, alternating, f16 and bf16.
for i in $(seq 1 ${ABROUNDS:-0}); do
  for v in $AB; do
    run $C/kl-$v --family gemm --dtype f16,bf16 --shapes-file "$AB_SHAPES" --json "$OUT/ab-$v-$i.json"
  done
  stamp "ab round $i"
done
# STEPS_ROUNDS=3 (with STEPS, e.g. d16,d25,d15): ROUNDS-like processes of `--family hgemm --steps STEPS` on SHAPES
# against cuBLAS (session 69's d25 calls; TESTS=1 with MODES_TEST=default runs the split-K order test too).
for i in $(seq 1 ${STEPS_ROUNDS:-0}); do
  run $C/kernel-lab --family hgemm --dtype f16 --steps "$STEPS" --gemm-sizes "$sizes" --json "$OUT/d25-$i.json"
  stamp "steps round $i"
done
grep -E "^==|^exit|^t\+|test result|FAILED|panicked" "$L" | head -80
