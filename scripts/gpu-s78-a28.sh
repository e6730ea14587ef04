#!/usr/bin/env bash
# Session 78, issue 49: a28 (a26 with a unit's last P·V and the next unit's first S issued together) against
# a26 in the same process (`kernel-lab prefill --kernel X --base-kernel a26`), 3 processes, at D = 128 and 64
# (bf16), a27 against a26 at D = 64 beside it; the GPU tests of every named step first. Carry: scripts/prefill-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s78-a28.txt" 300
S128=${S128:-1x32x8x2048x128,4x28x4x2048x128,1x32x8x4096x128,1x32x8x8192x128}
S64=${S64:-1x32x8x2048x64,4x28x4x2048x64,2x32x8x4096x64}
T=300 run $C/tests/prefill --test-threads=1 every_named prefill_matches_the_f64
for i in 1 2 3; do
  run $C/kernel-lab prefill --shapes $S128 --kernel attn_a28_d128_bf16 --base-kernel attn_a26_d128_bf16 --json "$OUT/a28-d128-$i.json"
  run $C/kernel-lab prefill --shapes $S64 --kernel attn_a28_d64_bf16 --base-kernel attn_a26_d64_bf16 --json "$OUT/a28-d64-$i.json"
  run $C/kernel-lab prefill --shapes $S64 --kernel attn_a27_d64_bf16 --base-kernel attn_a26_d64_bf16 --json "$OUT/a27-d64-$i.json"
done
(cd "$OUT" && tar cJf s78-a28-reports.tar.xz *.json 2>/dev/null && rm -f *.json)
grep -E "^==|^exit|test result|FAILED|panicked|^\| " "$L" | grep -v "^| shape\|^|---" | head -150
