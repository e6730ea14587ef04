#!/usr/bin/env bash
# Session 93, issue 49: prefill step a30 (early K/V at unit switches) in one call — the prefill GPU tests (a30 in
# the named-step test at D = 96 and 128), memcheck and racecheck on a30's launches, then a30 against a29 (D = 96) and
# a26 (D = 128) in the same process on short-prompt batches (8 × 512 tokens) and longer ones, 3 processes, each
# followed by torch's cuDNN SDPA sustained. Carry: scripts/prefill-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s93-a30.txt" 300
S96=${S96:-8x32x32x512x96,1x32x32x2048x96,1x32x32x8192x96}
S128=${S128:-8x32x8x512x128,8x32x32x512x128,4x28x4x2048x128,1x32x8x4096x128}
stamp start
T=300 run $C/tests/prefill --test-threads=1
stamp tests
for tool in memcheck racecheck; do
  T=200 run compute-sanitizer --tool $tool --kernel-name kns=attn_a30 --error-exitcode 9 $C/tests/prefill --test-threads=1 every_named_persistent
done
stamp sanitizers
for i in 1 2 3; do
  run $C/kernel-lab prefill --shapes $S96 --kernel attn_a30_d96_bf16 --base-kernel attn_a29_d96_bf16 --json "$OUT/a30-96-$i.json"
  run $C/kernel-lab prefill --shapes $S128 --kernel attn_a30_d128_bf16 --base-kernel attn_a26_d128_bf16 --json "$OUT/a30-128-$i.json"
  run python3 scripts/prefill-torch-peer.py --shapes $S96,$S128 --backends cudnn --sustain-ms 500 --out "$OUT/peer30-$i.md"
  stamp "round $i"
done
(cd "$OUT" && tar cJf s93-a30-reports.tar.xz *.json *.md 2>/dev/null && rm -f *.json *.md)
grep -E "^==|^exit|^t\+|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^\| " "$L" | grep -v "^| shape\|^|---" | head -150
