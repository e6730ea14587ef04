#!/usr/bin/env bash
# Session 77, issue 49: a27 as the library's D = 64 prefill kernel — the prefill GPU tests, compute-sanitizer
# (memcheck, racecheck, synccheck) on a27's launches, then a27 against a26 in the same process on every D = 64
# attention shape of the corpus (`../shared/shapes/shapes.py attention`: GPT-2 12/12, BERT-large 16/16,
# 32/8 heads; batch 1 and 8; 512, 2048, 8192 tokens), 3 processes, torch's cuDNN SDPA after each.
# Carry: scripts/prefill-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s77-verify.txt" 300
S=${S:-1x12x12x512x64,1x12x12x2048x64,1x12x12x8192x64,8x12x12x512x64,8x12x12x2048x64,8x12x12x8192x64,1x16x16x512x64,1x16x16x2048x64,1x16x16x8192x64,8x16x16x512x64,8x16x16x2048x64,8x16x16x8192x64,1x32x8x512x64,1x32x8x2048x64,1x32x8x8192x64,8x32x8x512x64,8x32x8x2048x64,8x32x8x8192x64}
T=300 run $C/tests/prefill --test-threads=1
for tool in memcheck racecheck synccheck; do
  T=300 run compute-sanitizer --tool $tool --kernel-name kns=attn_a27 --error-exitcode 9 $C/tests/prefill --test-threads=1 prefill_matches_the_f64
done
for i in 1 2 3; do
  run $C/kernel-lab prefill --shapes $S --kernel attn_a27_d64_bf16 --base-kernel attn_a26_d64_bf16 --json "$OUT/a27-corpus-$i.json"
  run python3 scripts/prefill-torch-peer.py --shapes $S --backends cudnn --sustain-ms 500 --out "$OUT/peer-corpus-$i.md"
done
(cd "$OUT" && tar cJf s77-verify-reports.tar.xz *.json *.md 2>/dev/null && rm -f *.json *.md)
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^\| " "$L" | grep -v "^| shape\|^|---" | head -150
