#!/usr/bin/env bash
# Issue 52's tensor-parallel runner on a multi-GPU machine in one call: the all-reduce GPU tests, the
# `llm` runner split over 2 GPUs (--tp 2) against HF transformers' logits and greedy tokens
# (scripts/llm-hf-check.py: two tiny checkpoints and the Llama-3-8B-shaped one), then decode at batch 1
# (512-token prompt, 64 steps) and batch 32 with --tp 1 and --tp 2 interleaved, 3 processes each; then a
# Llama-3-70B shape on the pair with synthetic weights (`llm --synthetic-weights`), 3 processes.
# Carry: scripts/slim-carry.sh allreduce (it carries `llm` too).
set -uo pipefail
. scripts/nccl-path.sh
. scripts/device-log.sh "tp.txt" 300
run nvidia-smi topo -m
T=120 run $C/tests/allreduce --test-threads=1
T=200 run python3 scripts/llm-hf-check.py --llm $C/llm --llm-args "--tp ${TP:-2}" --models tiny-llama,tiny-qwen2 --out "$OUT/hf-check-tp-tiny.md"
# A split that is wrong on the tiny models is wrong at 8B too: stop before the long part.
tail -1 "$L" | grep -q "^exit 0" || { grep -E "^==|^exit|^\| |error|panicked" "$L"; exit 1; }
# UNTIL=tiny: only the all-reduce tests and the tiny checkpoints (a short call: ~3 of the device minutes).
[ "${UNTIL:-}" = tiny ] && { grep -E "^==|^exit|^\| |test result|error|panicked|SKIPPED" "$L" | head -60; exit 0; }
T=200 run python3 scripts/llm-hf-check.py --llm $C/llm --llm-args "--tp-same-gpu 2" --models tiny-llama --out "$OUT/hf-check-tp-same-gpu.md"
T=400 run python3 scripts/llm-hf-check.py --llm $C/llm --llm-args "--tp ${TP:-2}" --models llama3-8b --out "$OUT/hf-check-tp-8b.md"
M=/tmp/llm-check/llama3-8b
for i in 1 2 3; do
  for tp in 1 ${TP:-2}; do
    run $C/llm --model $M --prompt-len 512 --max-new 64 --batch 1 --tp $tp --json "$OUT/b1-tp$tp-$i.json"
  done
done
for tp in 1 ${TP:-2}; do
  run $C/llm --model $M --prompt-len 128 --max-new 32 --batch 32 --tp $tp --json "$OUT/b32-tp$tp.json"
done
# A Llama-3-70B shape on the pair (140 GB of bf16: no checkpoint fits the disk): synthetic weights.
S=/tmp/llama3-70b-synthetic; mkdir -p $S
cp scripts/llama3-70b-config.json $S/config.json  # Llama-3-70B's dimensions
for i in 1 2 3; do
  T=300 run $C/llm --model $S --synthetic-weights --prompt-len 512 --max-new 32 --batch 1 --tp ${TP:-2} --json "$OUT/b1-70b-tp${TP:-2}-$i.json"
done
grep -E "^==|^exit|^\| |prompt|loaded|test result|error|Error|panicked|SKIPPED" "$L" | head -100
