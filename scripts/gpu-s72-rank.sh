#!/usr/bin/env bash
# Session 72 (issue 48): the per-tensor few-tile model (f14 / f21 / f22 by TileCost) checked on 12 shapes none of
# calls 1, 3 and 9 measured (scripts/s72-f22-holdout.txt, seed 74): the fp8 GPU tests, then `--autotune` with an
# empty cache times every candidate per shape and scaling (interleaved rounds) and names the rule's step; one
# process. $OUT gets the log.
set -uo pipefail
. scripts/device-log.sh "s72-rank.txt" 300
run $C/tests/fp8 --test-threads=1
T=250 run env KERNEL_LAB_TUNE_CACHE=/tmp/s72-tune.json $C/kernel-lab --family fp8 --steps fp8:f22 --shapes-file scripts/s72-f22-holdout.txt --autotune
cp /tmp/s72-tune.json $OUT/ 2>/dev/null
