#!/usr/bin/env bash
# Issue 52's checks after a change to the split runner or the fused all-reduce, on two GPUs: the all-reduce
# tests (the fused norm across the real GPUs included), the runner's kernel tests, the runner at --tp 2 against
# HF on the tiny checkpoints, and the one-GPU runner with FP8 weights against HF on the Llama-3-8B shape (its LM
# head path). Carry: scripts/slim-carry.sh allreduce kernel-lab-llm:kernels.
set -uo pipefail
. scripts/nccl-path.sh
. scripts/device-log.sh "tp-check.txt" 300
T=120 run $C/tests/allreduce --test-threads=1
T=120 run $C/tests/kernel-lab-llm-kernels --test-threads=1
T=200 run python3 scripts/llm-hf-check.py --llm $C/llm --llm-args "--tp 2" --models tiny-llama,tiny-qwen2 --out "$OUT/hf-check-tp-tiny.md"
T=300 run python3 scripts/llm-hf-check.py --llm $C/llm --llm-args "--fp8" --models llama3-8b --out "$OUT/hf-check-8b-fp8.md"
grep -E "^==|^exit|test result|panicked|error|SKIPPED|^\| " "$L" | head -40
