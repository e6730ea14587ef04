#!/usr/bin/env bash
# Session 53's review fixes on a GPU: the runner's kernel tests (argmax's −0/+0 tie), the decode tests (an O
# off 8 bytes through ad2's plan), and `llm --profile` behind a hold (batch 1, 3 processes) on the
# Llama-3-8B-shaped checkpoint. Carry: scripts/slim-carry.sh decode, plus .carry/tests/llm-kernels.
set -uo pipefail
. scripts/device-log.sh review-check.txt 300
M=/tmp/llm-check/llama3-8b
run $C/tests/llm-kernels
run $C/tests/decode --test-threads=1
run python3 -c "import sys; sys.path.insert(0, 'scripts'); import importlib; h = importlib.import_module('llm-hf-check'); from peer_common import import_torch; \
torch, tf = import_torch(True); print(h.make('llama3-8b', '/tmp/llm-check', torch, tf))"
for i in 1 2 3; do
  run $C/llm --model $M --prompt-len 2048 --max-new 64 --batch 1 --profile --json "$OUT/b1-$i.json"
done
grep -E "^==|^exit|test result|FAILED|panicked|^\| |prompt|profile" "$L" | head -80
