#!/usr/bin/env bash
# Decode attention at batch 1 (16k, 32k) with ad2 at forced split counts beside the plan's, 3 processes; the
# default decode shapes once; the runner at batch 32 with PDL and plain, 3 processes each. Carry: slim-carry.sh.
set -uo pipefail
. scripts/device-log.sh decode-splits.txt 300
J=/tmp/c5-json; mkdir -p $J
for i in 1 2 3; do
  T=120 run $C/kernel-lab decode --shapes 1x32x8x32768x128,1x32x8x16384x128 --splits 16,48,64,96,128 --dtype bf16 --json $J/splits-$i.json
done
T=150 run $C/kernel-lab decode --dtype bf16 --json $J/decode-default.json
M=/tmp/llm-check/llama3-8b
T=120 run python3 scripts/llm-hf-check.py --make-only --models llama3-8b
for i in 1 2 3; do
  T=60 run $C/llm --model $M --prompt-len 128 --max-new 64 --batch 32 --json $J/b32-pdl-$i.json
  T=60 run env KERNEL_LAB_PDL=0 $C/llm --model $M --prompt-len 128 --max-new 64 --batch 32 --json $J/b32-plain-$i.json
done
tar czf "$OUT/json.tar.gz" -C $J .
grep -E "^==|^exit|^\| |prompt|launches:" "$L" | grep -v "ad1" | head -120
