#!/usr/bin/env bash
# Session 77, issue 49: the persistent prefill's work list paired (`UnitOrder::Paired`: a (sequence, head)'s
# query tiles longest with shortest, a CTA taking both in consecutive rounds, head by head) against most work
# first (the order of sessions 62-76) — the same kernel in the same process (`--base-order most-work-first`),
# 3 processes: a27 on the corpus's D = 64 shapes of 2048 and 8192 tokens, a26 on D = 128 shapes with and
# without grouped heads, a25 at D = 256; torch's cuDNN SDPA after each round. First the prefill GPU tests and compute-sanitizer
# on a27's launches. Carry: scripts/prefill-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s77-paired.txt" 300
S64=${S64:-1x12x12x2048x64,8x12x12x2048x64,8x12x12x8192x64,8x16x16x2048x64,8x16x16x8192x64,8x32x8x2048x64,8x32x8x8192x64,1x32x8x8192x64}
S128=${S128:-8x32x32x4096x128,2x32x32x8192x128,8x32x8x4096x128,1x32x8x8192x128,4x28x4x2048x128,2x64x8x8192x128}
S256=${S256:-8x16x8x4096x256,2x16x8x8192x256}
T=300 run $C/tests/prefill --test-threads=1
for i in 1 2 3; do
  run $C/kernel-lab prefill --shapes $S64 --kernel attn_a27_d64_bf16 --base-kernel attn_a27_d64_bf16 --base-order most-work-first --json "$OUT/p64-$i.json"
  run $C/kernel-lab prefill --shapes $S128 --kernel attn_a26_d128_bf16 --base-kernel attn_a26_d128_bf16 --base-order most-work-first --json "$OUT/p128-$i.json"
  run $C/kernel-lab prefill --shapes $S256 --kernel attn_a25_d256_bf16 --base-kernel attn_a25_d256_bf16 --base-order most-work-first --json "$OUT/p256-$i.json"
  run python3 scripts/prefill-torch-peer.py --shapes $S64,$S128,$S256 --backends cudnn --sustain-ms 500 --out "$OUT/peer-$i.md"
done
for tool in memcheck synccheck racecheck; do
  T=100 run compute-sanitizer --tool $tool --kernel-name kns=attn_a27 --error-exitcode 9 $C/tests/prefill --test-threads=1 prefill_matches_the_f64
done
(cd "$OUT" && tar cJf s77-paired-reports.tar.xz *.json *.md 2>/dev/null && rm -f *.json *.md)
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK|^\| " "$L" | grep -v "^| shape\|^|---" | head -150
