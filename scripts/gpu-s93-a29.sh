#!/usr/bin/env bash
# Session 93, issue 49: prefill step a29 (a26 at D = 96 with S over the head's 96 dims) in one call — the prefill
# GPU tests (a28 now the library's D = 256 kernel; a29 in the named-step test on the D = 96 cases), memcheck and
# racecheck on a29's launches, then a29 against a26 in the same process at Phi-3's D = 96 shapes (`shapes.py
# attention`) and a grouped 32/8 one, 3 processes, each followed by torch SDPA (cuDNN sustained; flash once).
# Carry: scripts/prefill-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s93-a29.txt" 300
S96=${S96:-1x32x32x2048x96,1x32x32x8192x96,8x32x32x2048x96,8x32x32x512x96,1x32x8x4096x96}
stamp start
T=300 run $C/tests/prefill --test-threads=1
stamp tests
if [ "${SANITIZE:-1}" = 1 ]; then
  for tool in memcheck racecheck; do
    T=200 run compute-sanitizer --tool $tool --kernel-name kns=attn_a29 --error-exitcode 9 $C/tests/prefill --test-threads=1 every_named_persistent
  done
  stamp sanitizers
fi
for i in 1 2 3; do
  run $C/kernel-lab prefill --shapes $S96 --kernel attn_a29_d96_bf16 --base-kernel attn_a26_d128_bf16 --json "$OUT/a29-$i.json"
  run python3 scripts/prefill-torch-peer.py --shapes $S96 --backends cudnn --sustain-ms 500 --out "$OUT/peer96-$i.md"
  stamp "round $i"
done
run python3 scripts/prefill-torch-peer.py --shapes $S96 --backends cudnn,flash --out "$OUT/peer96-burst.md"
(cd "$OUT" && tar cJf s93-a29-reports.tar.xz *.json *.md 2>/dev/null && rm -f *.json *.md)
grep -E "^==|^exit|^t\+|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^\| " "$L" | grep -v "^| shape\|^|---" | head -150
