#!/usr/bin/env bash
# Session 92, the final build: the backward GPU tests (b7 / b8 the library's atomic dQ on mma.sync), the FP8 GPU tests
# (the calibration's test now checks f27's speed timings), then `kernel-lab backward --steps b7,b8` at the default
# shapes (b7 interleaved with b6, b8 with b7 at D = 64) with torch's FlashAttention-2 after each, 3 processes.
set -uo pipefail
. scripts/device-log.sh "s92-final.txt" 300
run $C/tests/backward --test-threads=1
run $C/tests/fp8 --test-threads=1
stamp "tests"
for i in 1 2 3; do
  echo "== process $i" | tee -a "$L"
  run $C/kernel-lab backward --steps b7,b8 --json "$OUT/ab-$i.json"
  run python3 scripts/backward-torch-peer.py --backends flash --out "$OUT/peer-$i.md"
  stamp "process $i"
done
(cd "$OUT" && tar cJf ab-json.tar.xz ab-*.json peer-*.md 2>/dev/null; rm -f ab-*.json peer-*.md)
grep -E "^==|^exit|test result|FAILED|panicked|^\| .*b[78]|t\+" "$L" | head -80
