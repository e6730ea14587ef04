#!/usr/bin/env bash
# One device call for a prefill step against a base step (issue 49): the prefill GPU tests (the step runs there on
# every case of its width through the named-step test), memcheck and racecheck on the step's launches, then the step
# against the base in the same process (`kernel-lab prefill --kernel --base-kernel`), 3 processes, each followed by
# torch's cuDNN SDPA sustained (500 ms a shape). Carry: scripts/prefill-carry.sh.
#   STEP=attn_x34_d128_bf16 BASE=attn_a26_d128_bf16 TAG=x34 [S=shapes] [TESTS=0] bash scripts/gpu-prefill-ab.sh
set -uo pipefail
: "${STEP:?STEP=the kernel to time}" "${BASE:?BASE=the base kernel}" "${TAG:?TAG=a short name for the files}"
. scripts/device-log.sh "s-$TAG.txt" 300
S=${S:-1x32x8x4096x128,1x32x8x8192x128,2x32x8x4096x128,4x28x4x2048x128,1x32x8x2048x128,8x32x8x512x128,2x32x32x4096x128}
TESTS=${TESTS:-1}
stamp start
[ "$TESTS" = 1 ] && T=300 run $C/tests/prefill --test-threads=1
stamp tests
for tool in memcheck racecheck; do
  [ "$TESTS" = 1 ] && T=200 run compute-sanitizer --tool $tool --kernel-name "regex=${STEP%_*16}" --error-exitcode 9 $C/tests/prefill --test-threads=1 every_named_persistent
done
stamp sanitizers
for i in 1 2 3; do
  run $C/kernel-lab prefill --shapes $S --kernel $STEP --base-kernel $BASE --json "$OUT/$TAG-$i.json"
  run python3 scripts/prefill-torch-peer.py --shapes $S --backends cudnn --sustain-ms 500 --out "$OUT/peer-$TAG-$i.md"
  stamp "round $i"
done
grep -E "^==|^exit|^t\+|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^\| " "$L" | grep -v "^| shape\|^|---" | head -150
