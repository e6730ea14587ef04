#!/usr/bin/env bash
# Issue 51's batch-1 decode, where its time goes: the runner's kernel tests (plain and under memcheck), the
# tiny HF checks (logits and greedy tokens), the Llama-3-8B-shaped random checkpoint (made as
# llm-hf-check.py makes it), `llm --profile` in 3 processes at batch 1 (2048-token prompt) and once at
# batch 32, and decode attention at batch 1 (planned split against one). With GEMM=1, the gemm family's
# autotuner on the step's five GEMM shapes at M = 1. Carry: scripts/slim-carry.sh, plus
# .carry/tests/llm-kernels (scripts/test-exe.sh kernel-lab-llm kernels).
set -uo pipefail
. scripts/device-log.sh decode-profile.txt 400
M=/tmp/llm-check/llama3-8b
run $C/tests/llm-kernels
T=200 run compute-sanitizer --tool memcheck $C/tests/llm-kernels
run python3 scripts/llm-hf-check.py --llm $C/llm --out "$OUT/hf-check.md"
run python3 -c "import sys; sys.path.insert(0, 'scripts'); import importlib; h = importlib.import_module('llm-hf-check'); from peer_common import import_torch; \
torch, tf = import_torch(True); print(h.make('llama3-8b', '/tmp/llm-check', torch, tf))"
for i in 1 2 3; do
  run $C/llm --model $M --prompt-len 2048 --max-new 64 --batch 1 --profile --json "$OUT/b1-$i.json"
done
run $C/llm --model $M --prompt-len 128 --max-new 32 --batch 32 --profile --json "$OUT/b32.json"
run $C/kernel-lab decode --shapes 1x32x8x2048x128,1x32x8x4096x128 --dtype bf16
if [ "${GEMM:-0}" = 1 ]; then
  S=1x6144x4096,1x4096x4096,1x28672x4096,1x4096x14336,1x128256x4096
  T=240 run $C/kernel-lab --family gemm --gemm-sizes $S --dtype bf16 --autotune --tune-cache "$OUT/tune.json" --out "$OUT/gemm-report"
fi
grep -E "^==|^exit|^\| |prompt|loaded|profile|error|Error|panicked|test result|ERROR SUMMARY|same|differ" "$L" | head -150
