#!/usr/bin/env bash
# Session 69 (issue 48): how the persistent split-K steps (d7, d19, …) split K. TESTS=1: the HGEMM
# reference test under each split rule in MODES_TEST; then ROUNDS rounds of `--family hgemm --steps STEPS`
# on SHAPES (a corpus tsv) under KERNEL_LAB_TMA_SPLITS = each of MODES (floor, balanced, fixed counts),
# alternating; ENTRY rounds of the entry point (`--family gemm`) under floor and balanced, alternating.
# Everything lands in $OUT/s69.tar.gz (the device returns at most 8 files). Carry: scripts/backward-carry.sh gpu.
set -uo pipefail
. scripts/device-log.sh "s69.txt" 400
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; }
pack() { (cd "$OUT" && tar czf /tmp/s69.tar.gz . && rm -rf ./* && mv /tmp/s69.tar.gz .); }
trap pack EXIT
export XDG_CACHE_HOME=/tmp/xdg
SH=${SHAPES:?corpus tsv}
sizes=$(grep -v '^#' "$SH" | cut -f1 | paste -sd, -)
if [ "${TESTS:-0}" = 1 ]; then
  for m in ${MODES_TEST:-balanced 5}; do
    KERNEL_LAB_TMA_SPLITS=$m T=300 run $C/tests/gpu every_hgemm_step --test-threads=1; stamp "tests $m"
  done
fi
for i in $(seq 1 ${ROUNDS:-1}); do
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
grep -E "^==|^exit|^t\+|test result|FAILED|panicked" "$L" | head -80
