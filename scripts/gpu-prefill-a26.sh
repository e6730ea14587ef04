#!/usr/bin/env bash
# Issue 49, session 63: a26 (a19 persistent over the host's units) on a GPU in one call: the prefill GPU
# tests (a26 in every f64-reference case and in the 2 × 2048 check against the fixed-length kernel; memcheck
# on the f64 cases), then `kernel-lab prefill --schedules all` (a26 against a19 interleaved, and the
# library's plan against the fixed-length kernel) on issue 49's D ≤ 128 shapes in 3 processes, the torch
# peer (cuDNN sustained 2 s a shape: the same power regime as the interleaved timing) after each.
# Carry: scripts/prefill-carry.sh.
set -uo pipefail
. scripts/device-log.sh "prefill-a26.txt" 300
SHAPES=${SHAPES:-1x32x8x4096x128,1x32x8x8192x128,4x28x4x2048x128,1x32x8x2048x128,2x32x8x4096x64}
T=240 run $C/tests/prefill --test-threads=1 prefill_matches_the_f64 prefill_matches_the_fixed bad_prefill
T=200 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/prefill --test-threads=1 prefill_matches_the_f64
for i in 1 2 3; do
  run $C/kernel-lab prefill --schedules all --shapes "$SHAPES" --json "$OUT/prefill-a26-$i.json"
  [ "${PEER:-1}" = 1 ] && run python3 scripts/prefill-torch-peer.py --shapes "$SHAPES" --backends cudnn --sustain-ms 1000 --out "$OUT/peer-sustained-$i.md"
done
(cd "$OUT" && tar cJf a26-reports.tar.xz *.json *.md 2>/dev/null && rm -f *.json *.md)
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|^\| |SKIPPED|varlen" "$L" | head -150 || true
