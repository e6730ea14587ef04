#!/usr/bin/env bash
# Session 107, device call 1 (issues 48, 51): f27n128's first GPU run (scripts/gpu-f27n128.sh, its own log), then the
# Llama-3-8B-shaped runner at batch 1 with `--profile` (an event after every launch of one decode step: each kernel's
# GPU time) for FP8 weights (w5) and bf16, 2 processes each — where the FP8 step's 3.32 ms goes on an H100 (bf16 /
# w5 1.695x in session 103; the issue asks 1.7x). Carry: scripts/slim-carry.sh fp8
set -uo pipefail
bash scripts/gpu-f27n128.sh
. scripts/device-log.sh s107-profile.txt 150
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
for i in 1 2; do
  for w in fp8 bf16; do
    opt=(); [ $w = fp8 ] && opt=(--fp8)
    echo "== profile $w process $i" | tee -a "$L"
    run env KERNEL_LAB_LLM_REPLAY=100 $C/llm --model $M --synthetic-weights "${opt[@]}" --prompt-len 2048 --max-new 16 --batch 1 --ignore-eos --profile --json $OUT/profile-$w-$i.json
    stamp "profile $w $i"
  done
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
