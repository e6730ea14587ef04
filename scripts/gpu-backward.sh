#!/usr/bin/env bash
# Issue 50's backward steps (b1, b2, b3) on a GPU in one call: the backward GPU tests (plain and under
# compute-sanitizer memcheck/racecheck), `kernel-lab backward` in REPS (default 3) processes (JSON each), each followed by
# torch SDPA's backward on the same shapes (scripts/backward-torch-peer.py), and an ncu profile of one kernel (NCU_K, default b2's dQ kernel) at one
# shape (NCU=0 skips it; TESTS=0 the plain tests). Carry: scripts/backward-carry.sh. Everything lands in $OUT.
set -uo pipefail
. scripts/device-log.sh "backward.txt"
[ "${TESTS:-1}" = 1 ] && run $C/tests/backward --test-threads=1 --nocapture
if [ "${SANITIZE:-1}" = 1 ]; then
  T=400 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/backward --test-threads=1 ${SAN_TESTS:-matches_the}
  T=400 run compute-sanitizer --tool racecheck --error-exitcode 9 $C/tests/backward --test-threads=1 ${SAN_TESTS:-matches_the}
fi
for i in $(seq 1 ${REPS:-3}); do
  run $C/kernel-lab backward ${SHAPES:+--shapes $SHAPES} --json "$OUT/backward-$i.json"
  run python3 scripts/backward-torch-peer.py ${SHAPES:+--shapes $SHAPES} --out "$OUT/peer-$i.md"
done
if [ "${NCU:-1}" = 1 ]; then
  T=300 run ncu --clock-control none -k regex:${NCU_K:-attn_bwd_b2dq} -c ${NCU_C:-1} --set full -o "$OUT/ncu" $C/kernel-lab backward --shapes 1x16x16x4096x128
  T=120 run ncu -i "$OUT/ncu.ncu-rep" --page details --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section Occupancy
fi
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^\| |SKIPPED|rel L2|grouped against" "$L" | head -200
