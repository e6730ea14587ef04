#!/usr/bin/env bash
# Issue 49's prefill at head dim 256 (step a24) on a GPU in one call: the prefill GPU tests (plain; memcheck
# and racecheck on the f64-reference cases), then `kernel-lab prefill` on Gemma-2's D = 256 shapes (from
# `shapes.py attention`) in 3 processes, each followed by torch SDPA on the same shapes
# (scripts/prefill-torch-peer.py: cuDNN and flash in bursts, then cuDNN sustained for 2 s a shape). Carry: scripts/prefill-carry.sh. Everything lands in $OUT.
set -uo pipefail
. scripts/device-log.sh "prefill-d256.txt" 500
SHAPES=${SHAPES:-2x16x8x4096x256,1x16x8x8192x256,8x16x8x2048x256,1x16x8x2048x256,8x16x8x512x256}
run $C/tests/prefill --test-threads=1
if [ "${SANITIZE:-1}" = 1 ]; then
  T=400 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/prefill --test-threads=1 prefill_matches_the_f64
  T=400 run compute-sanitizer --tool racecheck --error-exitcode 9 $C/tests/prefill --test-threads=1 prefill_matches_the_f64
fi
for i in 1 2 3; do
  run $C/kernel-lab prefill --shapes "$SHAPES" --json "$OUT/prefill-d256-$i.json"
  run python3 scripts/prefill-torch-peer.py --shapes "$SHAPES" --backends "${BURST_BACKENDS:-cudnn,flash}" --out "$OUT/peer-d256-$i.md"
  # cuDNN at the power-limited clock the Rust side's interleaved timing runs at.
  run python3 scripts/prefill-torch-peer.py --shapes "$SHAPES" --backends cudnn --sustain-ms 2000 --out "$OUT/peer-d256-sustained-$i.md"
done
# The device returns at most 8 files: the JSON reports and the peers' tables in one archive.
(cd "$OUT" && tar cJf d256-reports.tar.xz *.json *.md && rm -f *.json *.md)
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^\| |SKIPPED" "$L" | grep -v "| flash |" | head -150
