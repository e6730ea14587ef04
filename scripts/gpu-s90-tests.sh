#!/usr/bin/env bash
# Session 90, issue 48: the FP8 GPU tests on the final build (every step incl. f27 against the reference, f27 as
# the default where its tiles fill the rounds, the stream-K tails after the hybrid schedule's revert, the entry
# point's defaults, the calibration), then the entry point at the 26 changed shapes once more (1 process, a check
# of the final choice: 64x22016x4096 back on f22).
set -uo pipefail
. scripts/device-log.sh s90-tests.txt 400
T=400 run $C/tests/fp8 --test-threads 1
stamp tests
T=200 run $C/kernel-lab --family fp8 --entry --reps 10 --warmup 2 --gemm-sizes $(cat scripts/s90-f27-changed.txt) --seed 9051 --json "$OUT/entry-final.json"
stamp entry
grep -E "^==|^exit|^t\+|test result|FAILED|panicked|SKIPPED|^summary|under 0.85" "$L" | head -60
