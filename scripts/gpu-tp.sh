#!/usr/bin/env bash
# Issue 52's tensor-parallel runner on a multi-GPU machine in one call: the all-reduce GPU tests, the
# `llm` runner split over 2 GPUs (--tp 2) against HF transformers' logits and greedy tokens
# (scripts/llm-hf-check.py: two tiny checkpoints and the Llama-3-8B-shaped one), then decode at batch 1
# (512-token prompt, 64 steps) and batch 32 with --tp 1 and --tp 2 interleaved, 3 processes each.
# Carry: scripts/slim-carry.sh allreduce (it carries `llm` too).
set -uo pipefail
. scripts/nccl-path.sh
. scripts/device-log.sh "tp.txt" 300
run nvidia-smi topo -m
T=120 run $C/tests/allreduce --test-threads=1
T=400 run python3 scripts/llm-hf-check.py --llm $C/llm --llm-args "--tp ${TP:-2}" --models ${MODELS:-tiny-llama,tiny-qwen2,llama3-8b} --out "$OUT/hf-check-tp.md"
M=/tmp/llm-check/llama3-8b
for i in 1 2 3; do
  for tp in 1 ${TP:-2}; do
    run $C/llm --model $M --prompt-len 512 --max-new 64 --batch 1 --tp $tp --json "$OUT/b1-tp$tp-$i.json"
  done
done
for tp in 1 ${TP:-2}; do
  run $C/llm --model $M --prompt-len 128 --max-new 32 --batch 32 --tp $tp --json "$OUT/b32-tp$tp.json"
done
grep -E "^==|^exit|^\| |prompt|loaded|test result|error|Error|panicked|SKIPPED" "$L" | head -100
