#!/usr/bin/env bash
# Session 91 (issue 50): a b5 change A/B'd — .carry/old/kernel-lab (the form before) and .carry/kernel-lab (BUILDS:
# the builds in order, each .carry/NAME/kernel-lab, `new` the top one),
# `kernel-lab backward --steps b5` (b5 interleaved with b1 in each process), 3 processes each alternating;
# first the backward GPU tests on the new build (memcheck of b5's test), then (NCU=1) ncu of the new b5 at
# 1x16x16x4096x128 (NCU_SHAPE): its details and its SASS with per-instruction counters (csv). JSON tarred (the tool returns ~8 files).
set -uo pipefail
. scripts/device-log.sh "s91-ab.txt" 300
[ "${TESTS:-1}" = 1 ] && run $C/tests/backward --test-threads=1
[ "${SANITIZE:-1}" = 1 ] && T=300 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/backward --test-threads=1 fa2_warps
[ "${RACE:-0}" = 1 ] && T=300 run compute-sanitizer --tool racecheck --error-exitcode 9 $C/tests/backward --test-threads=1 fa2_warps
stamp "tests"
for i in $(seq 1 ${REPS:-3}); do
  for b in ${BUILDS:-old new}; do
    bin=$C/kernel-lab; [ $b != new ] && bin=$C/$b/kernel-lab
    echo "== ab process $i build $b" | tee -a "$L"
    run $bin backward --steps ${STEPS:-b5} ${SHAPES:+--shapes $SHAPES} --json "$OUT/ab-$b-$i.json"
  done
  [ "${PEER:-0}" = 1 ] && run python3 scripts/backward-torch-peer.py --backends flash ${SHAPES:+--shapes $SHAPES} --out "$OUT/peer-$i.md"
  stamp "process $i"
done
if [ "${NCU:-0}" = 1 ]; then
  S=${NCU_SHAPE:-1x16x16x4096x128}
  T=300 run ncu --clock-control none -k regex:'attn_bwd_b5_d' -c 1 --set full -o /tmp/ncu-b5 $C/kernel-lab backward --steps b5 --shapes $S
  ncu -i /tmp/ncu-b5.ncu-rep --page details > "$OUT/ncu-b5.txt" 2>&1
  ncu -i /tmp/ncu-b5.ncu-rep --page source --csv --print-source sass 2>&1 | xz -9 > "$OUT/b5-sass.csv.xz"
fi
(cd "$OUT" && tar cJf ab-json.tar.xz ab-*.json peer-*.md 2>/dev/null; rm -f ab-*.json peer-*.md)
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|^\| .*b5|SKIPPED|t\+" "$L" | head -150
