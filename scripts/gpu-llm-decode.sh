#!/usr/bin/env bash
# Issue 51's batch-1 decode against its peers in one call: the runner's kernel tests, the tiny HF checks,
# the Llama-3-8B-shaped checkpoint checked against HF (logits, 32 greedy tokens), `llm` at batch 1
# (2048-token prompt, --profile) and batch 32 (128-token prompts) in 3 processes each, then HF + static
# cache + torch.compile (reduce-overhead) at batch 1 and 32 (scripts/llm-hf-bench.py --compiled-only).
# Carry: scripts/slim-carry.sh, plus .carry/tests/llm-kernels.
set -uo pipefail
. scripts/device-log.sh llm-decode.txt 300
M=/tmp/llm-check/llama3-8b
run $C/tests/llm-kernels
run python3 scripts/llm-hf-check.py --llm $C/llm --out "$OUT/hf-check.md"
T=200 run python3 scripts/llm-hf-check.py --llm $C/llm --models llama3-8b --out "$OUT/hf-check-8b.md"
for i in 1 2 3; do
  run $C/llm --model $M --prompt-len 2048 --max-new 64 --batch 1 --profile --json "$OUT/b1-$i.json"
  run $C/llm --model $M --prompt-len 128 --max-new 64 --batch 32 --json "$OUT/b32-$i.json"
done
T=280 run python3 scripts/llm-hf-bench.py --model $M --compiled-only --out "$OUT/hf-bench-compiled.md"
grep -E "^==|^exit|test result|FAILED|panicked|^\| |prompt|profile|floor|weights" "$L" | head -150
