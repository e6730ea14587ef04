#!/usr/bin/env bash
# Decode attention's split rule (issue 49, one CTA an SM, session 55) on a GPU, one call: the decode GPU tests;
# `kernel-lab decode` on batch-1 shapes (16 splits planned) and batch 16 × D 64, 3 processes; torch SDPA's cuDNN
# decode on the batch-1 shapes in the same call; the runner's batch-1 decode (2048-token prompt), 3 processes.
# Carry: scripts/slim-carry.sh decode.
set -uo pipefail
. scripts/device-log.sh decode-splits.txt 300
J=/tmp/c6-json; mkdir -p $J
S=1x32x8x4096x128,1x32x8x16384x128,1x32x8x32768x128,16x32x8x4096x64
T=90 run $C/tests/decode
for i in 1 2 3; do T=60 run $C/kernel-lab decode --shapes $S --splits 32 --dtype bf16 --json $J/decode-$i.json; done
T=90 run python3 scripts/decode-torch-peer.py --shapes 1x32x8x4096x128,1x32x8x16384x128,1x32x8x32768x128 --backends cudnn --out "$OUT/peer.md"
T=90 run python3 scripts/llm-hf-check.py --make-only --models llama3-8b
for i in 1 2 3; do T=40 run $C/llm --model /tmp/llm-check/llama3-8b --prompt-len 2048 --max-new 64 --batch 1 --json $J/b1-$i.json; done
tar czf "$OUT/json.tar.gz" -C $J .
grep -E "^==|^exit|test result|FAILED|panicked|^\| |prompt" "$L" | grep -v "ad1" | head -80
