#!/usr/bin/env bash
# Issue 51 on a GPU in one call: random-weight checkpoints made with transformers, the `llm` runner against
# HF's logits and greedy tokens (scripts/llm-hf-check.py). MODELS picks them. Carry: scripts/llm-carry.sh.
set -uo pipefail
. scripts/device-log.sh "llm.txt" 500
run python3 scripts/llm-hf-check.py --llm $C/llm --models "${MODELS:-tiny-llama,tiny-llama31,tiny-qwen2,tiny-mistral}" --out "$OUT/hf-check.md"
grep -E "^==|^exit|^\| |error|Error|panicked" "$L" | head -80
