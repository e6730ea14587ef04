#!/usr/bin/env bash
# Session 60: b3 A/B — the carry's kernel-lab (three stages, dK/dQ left running into the next tile) against
# kernel-lab-a (two stages, every tile drained; commit 4b8a5ad), each `kernel-lab backward` in REPS processes,
# alternating; the new build's backward GPU tests first.
set -uo pipefail
. scripts/device-log.sh "b3-ab.txt" 400
run $C/tests/backward --test-threads=1
for i in $(seq 1 ${REPS:-3}); do
  run $C/kernel-lab-a backward --json "$OUT/a-$i.json"
  run $C/kernel-lab backward --json "$OUT/b-$i.json"
done
grep -E "^==|^exit|test result|FAILED|panicked|b3 wgmma" "$L" | head -120
