#!/usr/bin/env bash
# Session 91 (issue 50): step b5 (b1 on FlashAttention-2's warp layout) on a GPU — the backward GPU tests
# (every plan, b5 among them), memcheck of b5's test, then `kernel-lab backward --steps b1,b5` (b5 interleaved
# with b1) in 3 processes, each followed by torch SDPA's FlashAttention-2 backward on the same shapes.
# Carry: scripts/backward-carry.sh. RACE=1 adds racecheck of b5's test; NCU=1 an ncu of b1 and b5.
set -uo pipefail
. scripts/device-log.sh "s91-b5.txt" 300
[ "${TESTS:-1}" = 1 ] && run $C/tests/backward --test-threads=1
[ "${SANITIZE:-1}" = 1 ] && T=300 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/backward --test-threads=1 fa2_warps
[ "${RACE:-0}" = 1 ] && T=400 run compute-sanitizer --tool racecheck --error-exitcode 9 $C/tests/backward --test-threads=1 fa2_warps
stamp "tests"
for i in $(seq 1 ${REPS:-3}); do
  run $C/kernel-lab backward --steps ${STEPS:-b1,b5} ${SHAPES:+--shapes $SHAPES} --json "$OUT/b5-$i.json"
  run python3 scripts/backward-torch-peer.py --backends ${PEERS:-flash} ${SHAPES:+--shapes $SHAPES} --out "$OUT/peer-$i.md"
  stamp "process $i"
done
if [ "${NCU:-0}" = 1 ]; then
  T=300 run ncu --clock-control none -k regex:'attn_bwd_b[15]_d128' -c 2 --section SpeedOfLight --section InstructionStats --section MemoryWorkloadAnalysis_Tables --section WarpStateStats $C/kernel-lab backward --steps b5 --shapes 1x16x16x4096x128
fi
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^\| |SKIPPED|t\+" "$L" | head -150
