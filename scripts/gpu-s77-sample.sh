#!/usr/bin/env bash
# Session 77, issue 49: the library's prefill plan (a27 at D = 64, a26 at 96/128, a25 at 256; the work list paired
# with the causal mask) on a sample of the corpus's attention shapes no call had timed as a set
# (`../shared/shapes/shapes.py attention --sample 24 --seed 77`: 22 distinct), causal and not, each interleaved
# with the fixed-length kernel (`kernel-lab prefill`), 3 processes; torch SDPA's cuDNN and flash backends
# (sustained 0.3 s a shape) after each round. Carry: scripts/prefill-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s77-sample.txt" 300
S=${S:-1x12x12x2048x64,1x12x12x512x64,1x16x8x8192x256,1x24x8x8192x128,1x32x32x512x128,1x32x32x512x96,1x32x32x8192x128,1x32x8x2048x128,1x32x8x512x128,1x32x8x512x64,1x32x8x8192x128,1x64x8x2048x128,1x64x8x512x128,8x16x16x512x64,8x16x16x8192x64,8x16x8x8192x256,8x24x8x8192x128,8x32x32x8192x128,8x32x8x2048x128,8x32x8x8192x128,8x64x8x2048x128,8x64x8x8192x128}
for i in 1 2 3; do
  run $C/kernel-lab prefill --shapes $S --json "$OUT/sample-$i.json"
  run python3 scripts/prefill-torch-peer.py --shapes $S --backends cudnn,flash --sustain-ms 300 --out "$OUT/peer-$i.md"
done
(cd "$OUT" && tar cJf s77-sample-reports.tar.xz *.json *.md 2>/dev/null && rm -f *.json *.md)
grep -E "^==|^exit|panicked|Error|^\| " "$L" | grep -v "^| shape\|^|---" | head -40
