#!/usr/bin/env bash
# Session 92 (issue 50): step b7 (b6 longest first; the library's atomic dQ on mma.sync) — the backward GPU
# tests, memcheck of b7's (the atomic-dQ plan's) test; `kernel-lab backward --steps b6,b7` (b6 interleaved with
# b5, b7 with b6 in each process) and torch's FlashAttention-2 backward after each, 3 processes; then b7's
# gradients at large shapes against torch's fp32 backward (`--dump --dq atomic --engine mma-sync`,
# scripts/backward-torch-check.py). JSON tarred (the tool returns ~8 files).
set -uo pipefail
. scripts/device-log.sh "s92-b7.txt" 300
run $C/tests/backward --test-threads=1
T=300 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/backward --test-threads=1 atomic_dq
stamp "tests"
for i in $(seq 1 ${REPS:-3}); do
  echo "== process $i" | tee -a "$L"
  run $C/kernel-lab backward --steps ${STEPS:-b6,b7} ${SHAPES:+--shapes $SHAPES} --json "$OUT/ab-$i.json"
  run python3 scripts/backward-torch-peer.py --backends flash ${SHAPES:+--shapes $SHAPES} --out "$OUT/peer-$i.md"
  stamp "process $i"
done
D=/tmp/bwd-dump; rm -rf $D
run $C/kernel-lab backward --steps b7 --shapes ${CHECK_SHAPES:-1x32x8x4096x128,2x16x16x2048x64} --dump $D --dq atomic --engine mma-sync
run python3 scripts/backward-torch-check.py $D --out "$OUT/torch-check.md"
(cd "$OUT" && tar cJf ab-json.tar.xz ab-*.json peer-*.md 2>/dev/null; rm -f ab-*.json peer-*.md)
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|^\| .*b[67]|SKIPPED|t\+" "$L" | head -150
cat "$OUT/torch-check.md"
