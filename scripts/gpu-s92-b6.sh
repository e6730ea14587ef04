#!/usr/bin/env bash
# Session 92: (issue 50) step b6 — the backward GPU tests (b6's among them) and memcheck of b6's test; then
# `kernel-lab backward --steps b5,b6` (b5 interleaved with b1, b6 with b5 in each process) and torch's
# FlashAttention-2 backward after each process (PEER=1), 3 processes; ncu of b6 (NCU=1) at NCU_SHAPE.
# (issue 48) the FP8 GPU tests on the f27 producer refactor (FP8=1). JSON tarred (the tool returns ~8 files).
set -uo pipefail
. scripts/device-log.sh "s92-b6.txt" 300
[ "${FP8:-1}" = 1 ] && run $C/tests/fp8 --test-threads=1
[ "${TESTS:-1}" = 1 ] && run $C/tests/backward --test-threads=1
[ "${SANITIZE:-1}" = 1 ] && T=300 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/backward --test-threads=1 b6_backward
[ "${RACE:-0}" = 1 ] && T=300 run compute-sanitizer --tool racecheck --error-exitcode 9 $C/tests/backward --test-threads=1 b6_backward
stamp "tests"
for i in $(seq 1 ${REPS:-3}); do
  echo "== process $i" | tee -a "$L"
  run $C/kernel-lab backward --steps ${STEPS:-b5,b6} ${SHAPES:+--shapes $SHAPES} --json "$OUT/ab-$i.json"
  [ "${PEER:-1}" = 1 ] && run python3 scripts/backward-torch-peer.py --backends flash ${SHAPES:+--shapes $SHAPES} --out "$OUT/peer-$i.md"
  stamp "process $i"
done
if [ "${NCU:-1}" = 1 ]; then
  S=${NCU_SHAPE:-1x16x16x4096x128}
  T=300 run ncu --clock-control none -k regex:'attn_bwd_b6_d' -c 1 --set full -o /tmp/ncu-b6 $C/kernel-lab backward --steps b6 --shapes $S
  ncu -i /tmp/ncu-b6.ncu-rep --page details > "$OUT/ncu-b6.txt" 2>&1
  ncu -i /tmp/ncu-b6.ncu-rep --page source --csv --print-source sass 2>&1 | xz -9 > "$OUT/b6-sass.csv.xz"
fi
(cd "$OUT" && tar cJf ab-json.tar.xz ab-*.json peer-*.md 2>/dev/null; rm -f ab-*.json peer-*.md)
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|^\| .*b[56]|SKIPPED|t\+" "$L" | head -150
