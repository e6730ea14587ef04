#!/usr/bin/env bash
# Issue 49's decode step on a GPU in one call: the decode GPU tests (plain and under compute-sanitizer
# memcheck/racecheck), `kernel-lab decode` in 3 processes (JSON each), torch SDPA's decode on the same
# shapes (scripts/decode-torch-peer.py, 3 processes), and the rmsnorm/softmax examples (issue 53's speed
# check). Carry: scripts/decode-carry.sh. Everything lands in $OUT.
set -uo pipefail
. scripts/device-log.sh "decode.txt"
run $C/tests/decode --test-threads=1
if [ "${SANITIZE:-1}" = 1 ]; then
  T=400 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/decode --test-threads=1 decode_matches
  T=400 run compute-sanitizer --tool racecheck --error-exitcode 9 $C/tests/decode --test-threads=1 appended
fi
for i in 1 2 3; do
  run $C/kernel-lab decode --json "$OUT/decode-$i.json"
  run python3 scripts/decode-torch-peer.py --out "$OUT/peer-$i.md"
done
[ "${EXAMPLES:-1}" = 1 ] && for i in 1 2 3; do run $C/rmsnorm; run $C/softmax; done
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^\| |GB/s" "$L" | head -150
