#!/usr/bin/env bash
# Session 72 (issue 48): FP8 f21 (f12's per-tensor tiles with K split over a cluster, h8's body). TESTS=1: the fp8
# GPU tests (every step on ragged shapes, f21 as the default where few tiles have deep K) and compute-sanitizer
# memcheck/racecheck/synccheck of f21 at two cluster sizes; then ROUNDS processes of the fp8 family with f14 and
# f21x2 … f21x8 on scripts/s72-f21-shapes.txt (the headline's two small shapes, 128x3072x4096 and 14 drawn with
# seed 72 from the corpus's 412 distinct FP8 shapes with M >= 17 whose 128x256 tiles fill under one round of
# 132 SMs), each step timed interleaved with cuBLASLt. Builds in .carry (scripts/slim-carry.sh fp8). $OUT gets the
# log and json.tgz. Call 3: SHAPES=scripts/s72-f21-holdout.txt (14 more drawn with seed 73, none of call 1's) TESTS=0
# HEADLINE=1.
set -uo pipefail
. scripts/device-log.sh "s72-${PART:-f21}.txt" 300
J=/tmp/s72j; mkdir -p $J
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; tar czf "$OUT/json.tgz" -C $J .; }
if [ "${TESTS:-1}" = 1 ]; then
  run $C/tests/fp8 --test-threads=1; stamp tests
  for tool in memcheck racecheck synccheck; do
    T=120 run compute-sanitizer --tool $tool --error-exitcode 9 $C/kernel-lab --family fp8 --steps fp8:f21x3,fp8:f21x8 --check --gemm-sizes 300x520x2064,129x264x4096
  done
  stamp sanitizers
fi
STEPS=${STEPS:-fp8:f14,fp8:f21x2,fp8:f21x3,fp8:f21x4,fp8:f21x5,fp8:f21x6,fp8:f21x7,fp8:f21x8}
for i in $(seq 1 ${ROUNDS:-3}); do
  T=400 run $C/kernel-lab --family fp8 --steps $STEPS --shapes-file ${SHAPES:-scripts/s72-f21-shapes.txt} --json $J/f21-$i.json
  stamp "round $i"
done
# HEADLINE=1: `cargo run --release`'s headline and ladders (one process), as the top-level README shows it.
if [ "${HEADLINE:-0}" = 1 ]; then
  T=400 run $C/kernel-lab --json $J/headline.json; stamp headline
  grep -A9 "== headline" "$L" | tail -9 > "$OUT/headline.txt"
fi
