#!/usr/bin/env bash
# Session 95, call 3 (one H200): the runner against HF on the tiny checkpoints — bf16 on one GPU (after the
# final norm moved into local_norm), FP8 on one GPU and split over two ranks sharing it, bf16 split likewise.
# Carry: the llm runner alone (.carry/llm.xz).
set -uo pipefail
. scripts/device-log.sh "s95-check.txt" 400
run python3 scripts/llm-hf-check.py --llm $C/llm --models tiny-llama,tiny-qwen2 --out $OUT/hf-bf16-tp1.md
run python3 scripts/llm-hf-check.py --llm $C/llm --models tiny-llama,tiny-qwen2 --llm-args=--fp8 --report-only --out $OUT/hf-fp8-tp1.md
run python3 scripts/llm-hf-check.py --llm $C/llm --models tiny-llama,tiny-qwen2 --llm-args "--fp8 --tp-same-gpu 2" --report-only --out $OUT/hf-fp8-tp2same.md
run python3 scripts/llm-hf-check.py --llm $C/llm --models tiny-llama,tiny-qwen2 --llm-args "--tp-same-gpu 2" --out $OUT/hf-bf16-tp2same.md
for f in $OUT/hf-*.md; do echo "== $f"; cat $f; done
