#!/usr/bin/env bash
# Session 92 (issue 50): step b8 (b7 on 128-query tiles at D = 64; the library's atomic dQ on mma.sync there) — the
# backward GPU tests, memcheck and racecheck of b8's test; `kernel-lab backward --steps b7,b8` (b7 interleaved with
# b6, b8 with b7) at D = 64 shapes and torch's FlashAttention-2 backward after each, 3 processes; b8's gradients
# against torch's fp32 backward (`--dump --dq atomic --engine mma-sync`). JSON tarred (the tool returns ~8 files).
set -uo pipefail
. scripts/device-log.sh "s92-b8.txt" 300
S=${SHAPES:-2x16x16x4096x64,1x32x8x8192x64,4x16x16x2048x64}
run $C/tests/backward --test-threads=1
T=300 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/backward --test-threads=1 b8_backward
T=300 run compute-sanitizer --tool racecheck --error-exitcode 9 $C/tests/backward --test-threads=1 b8_backward
stamp "tests"
for i in $(seq 1 ${REPS:-3}); do
  echo "== process $i" | tee -a "$L"
  run $C/kernel-lab backward --steps b7,b8 --shapes $S --json "$OUT/ab-$i.json"
  run python3 scripts/backward-torch-peer.py --backends flash --shapes $S --out "$OUT/peer-$i.md"
  stamp "process $i"
done
D=/tmp/bwd-dump; rm -rf $D
run $C/kernel-lab backward --steps b8 --shapes 2x16x16x2048x64,1x32x8x4096x64 --dump $D --dq atomic --engine mma-sync
run python3 scripts/backward-torch-check.py $D --out "$OUT/torch-check.md"
(cd "$OUT" && tar cJf ab-json.tar.xz ab-*.json peer-*.md 2>/dev/null; rm -f ab-*.json peer-*.md)
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^\| .*b[78]|SKIPPED|t\+" "$L" | head -150
cat "$OUT/torch-check.md"
