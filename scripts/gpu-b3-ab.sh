#!/usr/bin/env bash
# Session 60: b3 A/B — the carry's kernel-lab against kernel-lab-a (an earlier build), each `kernel-lab
# backward` in REPS processes, alternating (SHAPES: `--shapes`); the new build's backward GPU tests first.
# Call 4: d77d6f2 (three stages) against 4b8a5ad (two, drained); call 7: d099097 (dQ blocks last-first)
# against d77d6f2. Session 65: b4 (one barrier a tile, copies a tile ahead) against b4 as first written
# (the rows of every wgmma step: b3 and b4).
set -uo pipefail
. scripts/device-log.sh "b3-ab.txt" 400
run $C/tests/backward --test-threads=1
for i in $(seq 1 ${REPS:-3}); do
  run $C/kernel-lab-a backward ${SHAPES:+--shapes $SHAPES} --json "$OUT/a-$i.json"
  run $C/kernel-lab backward ${SHAPES:+--shapes $SHAPES} --json "$OUT/b-$i.json"
done
grep -E "^==|^exit|test result|FAILED|panicked|wgmma" "$L" | head -120
