#!/usr/bin/env bash
# Issue 51 on a GPU in one call: random-weight checkpoints made with transformers, the `llm` runner against
# HF's logits and greedy tokens (scripts/llm-hf-check.py; MODELS picks them, HF_CHECK=0 skips it), then the
# runner's batch of several prompts, eos stop and text prompts (scripts/llm-features-check.py; FEATURES=0
# skips it). Carry: scripts/llm-carry.sh.
set -uo pipefail
. scripts/device-log.sh "llm.txt" 500
[ "${HF_CHECK:-1}" = 1 ] && run python3 scripts/llm-hf-check.py --llm $C/llm --models "${MODELS:-tiny-llama,tiny-llama31,tiny-qwen2,tiny-mistral}" --out "$OUT/hf-check.md"
[ "${FEATURES:-1}" = 1 ] && run python3 scripts/llm-features-check.py --llm $C/llm --out "$OUT/features.md"
grep -E "^==|^exit|^\| |error|Error|panicked" "$L" | head -80
