#!/usr/bin/env bash
# Issue 51's FP8 weights (kernel_lab::fp8_weights, step w1) on a GPU, in two calls of under 10 minutes:
#   kernels: the GPU tests, memcheck of w1's test, `kernel-lab w8` in 3 processes (FP8 against 16-bit weights,
#            interleaved), the tiny HF checkpoints run with --fp8 (logits' error reported);
#   model:   the Llama-3-8B-shaped checkpoint with --fp8 against HF (logits, greedy tokens; reported), `llm` at
#            batch 1 (2048-token prompt) with --fp8 and without, alternating, 3 processes each; --fp8 --profile;
#            batch 32 with --fp8 in 3 processes.
# Carry: scripts/slim-carry.sh fp8_weights. JSON results go into one archive, $OUT/json.tar.gz.
set -uo pipefail
mode=${1:?kernels or model}
. scripts/device-log.sh fp8-weights-$mode.txt 300
J=/tmp/fp8-json; mkdir -p $J
M=/tmp/llm-check/llama3-8b
if [ "$mode" = kernels ]; then
  run $C/tests/fp8_weights
  T=400 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/fp8_weights weight_only_decode
  for i in 1 2 3; do run $C/kernel-lab w8 --json $J/w8-$i.json; done
  run python3 scripts/llm-hf-check.py --llm $C/llm --llm-args=--fp8 --report-only --out "$OUT/hf-check-fp8.md"
else
  T=240 run python3 scripts/llm-hf-check.py --llm $C/llm --models llama3-8b --llm-args=--fp8 --report-only --out "$OUT/hf-check-8b-fp8.md"
  for i in 1 2 3; do
    run $C/llm --model $M --prompt-len 2048 --max-new 64 --batch 1 --fp8 --json $J/fp8-b1-$i.json
    run $C/llm --model $M --prompt-len 2048 --max-new 64 --batch 1 --json $J/bf16-b1-$i.json
  done
  run $C/llm --model $M --prompt-len 2048 --max-new 16 --batch 1 --fp8 --profile --json $J/fp8-b1-profile.json
  for i in 1 2 3; do run $C/llm --model $M --prompt-len 128 --max-new 64 --batch 32 --fp8 --json $J/fp8-b32-$i.json; done
fi
tar czf "$OUT/json.tar.gz" -C $J .
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|^\| |prompt|profile|GPU:|model " "$L" | head -150
