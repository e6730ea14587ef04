#!/usr/bin/env bash
# Session 73 (issue 48): the block-scaled choice (fwb up to 16 rows; f3 / f23 by TileCost where f3's tiles fill
# under one round) checked on seed 76's 28 shapes, which no fit used (scripts/s73-block-holdout.txt): `--autotune`
# with an empty cache times every candidate per shape and scaling (interleaved rounds; one process) and names
# the rule's step; then ROUNDS processes of f3, f23 and fwb on the same shapes, each interleaved with cuBLASLt.
# $OUT gets the log, the tune cache and json.tgz.
set -uo pipefail
. scripts/device-log.sh "s73-rank.txt" 300
J=/tmp/s73r; mkdir -p $J
T=300 run env KERNEL_LAB_TUNE_CACHE=$J/tune.json $C/kernel-lab --family fp8 --steps fp8:f23 --shapes-file scripts/s73-block-holdout.txt --autotune
for i in $(seq 1 ${ROUNDS:-3}); do
  T=200 run $C/kernel-lab --family fp8 --steps fp8:f3,fp8:f23,fp8:fwb --shapes-file scripts/s73-block-holdout.txt --json $J/hold-$i.json
done
tar czf "$OUT/json.tgz" -C $J .
