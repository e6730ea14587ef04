#!/usr/bin/env bash
# Issue 51 on a GPU in one call: random-weight checkpoints made with transformers, the `llm` runner against
# HF's logits and greedy tokens (scripts/llm-hf-check.py). MODELS picks them. Carry: scripts/llm-carry.sh.
set -uo pipefail
OUT=${OUT:-/tmp/kernel-lab-out}; mkdir -p "$OUT"
C=.carry
cd $C && xz -d -f *.xz 2>/dev/null; chmod +x * 2>/dev/null; cd ..
L="$OUT/llm.txt"
{ echo "commit $(tr '\n' ' ' < $C/COMMIT)"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv; } 2>&1 | tee "$L"
run() { echo "== $*" | tee -a "$L"; timeout ${T:-500} "$@" >> "$L" 2>&1; echo "exit $?" | tee -a "$L"; }
run python3 scripts/llm-hf-check.py --llm $C/llm --models "${MODELS:-tiny-llama,tiny-llama31,tiny-qwen2,tiny-mistral}" --out "$OUT/hf-check.md"
grep -E "^==|^exit|^\| |error|Error|panicked" "$L" | head -80
