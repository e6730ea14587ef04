#!/usr/bin/env bash
# Session 93, issue 49: prefill step a31 (a28 with each unit's first S and softmax under the last unit's last P·V)
# in one call — the prefill GPU tests (a31 on every D = 256 case of the named-step test), memcheck and racecheck on
# a31's launches, then a31 against a28 in the same process at D = 256 on short prompts (8 × 512, 8 × 1024) and longer
# ones, 3 processes, each followed by torch's cuDNN SDPA sustained. Carry: scripts/prefill-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s93-a31.txt" 300
S=${S:-8x16x8x512x256,8x16x8x1024x256,1x16x8x2048x256,2x16x8x4096x256}
TESTS=${TESTS:-1}
stamp start
[ "$TESTS" = 1 ] && T=300 run $C/tests/prefill --test-threads=1
stamp tests
for tool in memcheck racecheck; do
  [ "$TESTS" = 1 ] && T=200 run compute-sanitizer --tool $tool --kernel-name kns=attn_a31 --error-exitcode 9 $C/tests/prefill --test-threads=1 every_named_persistent
done
stamp sanitizers
for i in 1 2 3; do
  run $C/kernel-lab prefill --shapes $S --kernel attn_a31_d256_bf16 --base-kernel attn_a28_d256_bf16 --json "$OUT/${TAG:-a31}-$i.json"
  run python3 scripts/prefill-torch-peer.py --shapes $S --backends cudnn --sustain-ms 500 --out "$OUT/${TAG:-peer31}-peer-$i.md"
  stamp "round $i"
done
(cd "$OUT" && tar cJf s93-a31-reports.tar.xz *.json *.md 2>/dev/null && rm -f *.json *.md)
grep -E "^==|^exit|^t\+|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^\| " "$L" | grep -v "^| shape\|^|---" | head -150
