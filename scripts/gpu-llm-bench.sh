#!/usr/bin/env bash
# Issue 51's timing on a GPU: PART=ours — the Llama-3-8B-shaped random checkpoint (made by llm-hf-check.py,
# which also checks its logits and greedy tokens against HF), then `llm` in 3 processes each: prefill of 2048
# tokens at batch 1 with 64 decode steps, prefill 2048 × 8, decode at batch 32 after 128-token prompts;
# PART=graphs — the same with decode captured as a CUDA graph (checks first); PART=hf — scripts/llm-hf-bench.py on the same checkpoint (eager and static cache + torch.compile).
# Carry: scripts/llm-carry.sh.
set -uo pipefail
. scripts/device-log.sh "llm-bench-${PART:-ours}.txt" 500
M=/tmp/llm-check/llama3-8b
if [ "${PART:-ours}" = ours ]; then
  run python3 scripts/llm-hf-check.py --llm $C/llm --models llama3-8b --out "$OUT/hf-check-8b.md"
  for i in 1 2 3; do
    run $C/llm --model $M --prompt-len 2048 --max-new 64 --batch 1 --json "$OUT/b1-$i.json"
    run $C/llm --model $M --prompt-len 2048 --max-new 4 --batch 8 --json "$OUT/p8-$i.json"
    run $C/llm --model $M --prompt-len 128 --max-new 64 --batch 32 --json "$OUT/b32-$i.json"
  done
elif [ "${PART}" = graphs ]; then
  # The decode step as a CUDA graph: the tiny checks (greedy tokens through 30 replays), the 8B check,
  # then batch 1 and 32 timed, and batch 1 once without graphs.
  run python3 scripts/llm-hf-check.py --llm $C/llm --out "$OUT/hf-check.md"
  run python3 scripts/llm-hf-check.py --llm $C/llm --models llama3-8b --out "$OUT/hf-check-8b.md"
  for i in 1 2 3; do
    run $C/llm --model $M --prompt-len 2048 --max-new 64 --batch 1 --json "$OUT/b1-$i.json"
    run $C/llm --model $M --prompt-len 128 --max-new 64 --batch 32 --json "$OUT/b32-$i.json"
  done
  run $C/llm --model $M --prompt-len 2048 --max-new 64 --batch 1 --no-graphs --json "$OUT/b1-nographs.json"
else
  run python3 scripts/llm-hf-check.py --llm $C/llm --models llama3-8b --out "$OUT/hf-check-8b.md"
  T=560 run python3 scripts/llm-hf-bench.py --model $M --out "$OUT/hf-bench.md"
fi
grep -E "^==|^exit|^\| |prompt|loaded|floor|error|Error|panicked" "$L" | head -80
