#!/usr/bin/env bash
# Session 93, issue 49: prefill step a28 (a25 with 80-key tiles at D = 256) in one call — the prefill GPU tests
# (a28 runs in `every_named_persistent_prefill_step_matches_the_f64_reference` on every D = 256 case), memcheck and
# racecheck on a28's launches, then a28 against a25 in the same process (`--kernel/--base-kernel`, interleaved
# pairs, with and without the mask) in 3 processes, each followed by torch's cuDNN SDPA sustained. Carry:
# scripts/prefill-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s93-a28.txt" 300
S256=${S256:-2x16x8x4096x256,1x16x8x8192x256,8x16x8x2048x256,1x16x8x2048x256,4x8x4x4096x256}
stamp start
T=300 run $C/tests/prefill --test-threads=1
stamp tests
if [ "${SANITIZE:-1}" = 1 ]; then
  for tool in memcheck racecheck; do
    T=200 run compute-sanitizer --tool $tool --kernel-name kns=attn_a28 --error-exitcode 9 $C/tests/prefill --test-threads=1 every_named_persistent
  done
  stamp sanitizers
fi
for i in 1 2 3; do
  run $C/kernel-lab prefill --shapes $S256 --kernel attn_a28_d256_bf16 --base-kernel attn_a25_d256_bf16 --json "$OUT/a28-$i.json"
  run python3 scripts/prefill-torch-peer.py --shapes $S256 --backends cudnn --sustain-ms 500 --out "$OUT/peer-$i.md"
  stamp "round $i"
done
(cd "$OUT" && tar cJf s93-a28-reports.tar.xz *.json *.md 2>/dev/null && rm -f *.json *.md)
grep -E "^==|^exit|^t\+|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^\| " "$L" | grep -v "^| shape\|^|---" | head -150
