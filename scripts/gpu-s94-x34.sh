#!/usr/bin/env bash
# Session 94, issue 49, call 6: x34 (x33 with K and V of a key tile in one ring entry) — the prefill GPU tests
# (x34 on every D = 128 case of the named-step test), memcheck and racecheck on its launches, then x34 against a26 in
# the same process at D = 128, 3 processes, each followed by torch's cuDNN SDPA sustained. Carry: scripts/prefill-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s94-x34.txt" 300
S=${S:-1x32x8x4096x128,1x32x8x8192x128,2x32x8x4096x128,4x28x4x2048x128,1x32x8x2048x128,8x32x8x512x128,2x32x32x4096x128}
TESTS=${TESTS:-1}
stamp start
[ "$TESTS" = 1 ] && T=300 run $C/tests/prefill --test-threads=1
stamp tests
for tool in memcheck racecheck; do
  [ "$TESTS" = 1 ] && T=200 run compute-sanitizer --tool $tool --kernel-name 'regex=attn_x34' --error-exitcode 9 $C/tests/prefill --test-threads=1 every_named_persistent
done
stamp sanitizers
for i in 1 2 3; do
  run $C/kernel-lab prefill --shapes $S --kernel attn_x34_d128_bf16 --base-kernel attn_a26_d128_bf16 --json "$OUT/x34-$i.json"
  run python3 scripts/prefill-torch-peer.py --shapes $S --backends cudnn --sustain-ms 500 --out "$OUT/peer34-$i.md"
  stamp "round $i"
done
grep -E "^==|^exit|^t\+|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^\| " "$L" | grep -v "^| shape\|^|---" | head -150
