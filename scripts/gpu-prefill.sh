#!/usr/bin/env bash
# Issue 49's prefill step (a19) on a GPU in one call: the prefill GPU tests (plain and under
# compute-sanitizer memcheck/racecheck), the fixed-length attention GPU tests (a19 shares their Hopper
# body), `kernel-lab prefill` in 3 processes (JSON each) and torch SDPA on the same shapes and lengths
# (scripts/prefill-torch-peer.py, 3 processes, after each Rust process). Carry: scripts/prefill-carry.sh.
# Everything lands in $OUT.
set -uo pipefail
. scripts/device-log.sh "prefill.txt"
run $C/tests/prefill --test-threads=1
[ "${FIXED:-1}" = 1 ] && run $C/tests/attention --test-threads=1
if [ "${SANITIZE:-1}" = 1 ]; then
  T=400 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/prefill --test-threads=1 prefill_matches_the_f64
  T=400 run compute-sanitizer --tool racecheck --error-exitcode 9 $C/tests/prefill --test-threads=1 prefill_matches_the_f64
fi
for i in 1 2 3; do
  run $C/kernel-lab prefill --json "$OUT/prefill-$i.json"
  lens=$(python3 -c "import json; print(','.join(map(str, json.load(open('$OUT/prefill-$i.json'))['varlen'])))" 2>/dev/null)
  run python3 scripts/prefill-torch-peer.py --varlen-lens "$lens" --out "$OUT/peer-$i.md"
done
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^\| |SKIPPED" "$L" | head -150
