#!/usr/bin/env bash
# Issue 52, where the TP = 2 step's time goes: the Llama-3-8B-shaped checkpoint (random weights, made here by
# scripts/llm-hf-check.py) decoded at batch 1 with `--profile` at --tp 1 and --tp 2 (GPU time per kernel), the
# prompt's logits of both written (`--logits-out`) and compared (scripts/compare-logits.py: TP = 2 against the
# one-GPU runner), then a Llama-3-70B shape on the pair with synthetic weights, 3 processes.
# Carry: scripts/slim-carry.sh allreduce.  ONLY=profile|logits|70b runs one part.
set -uo pipefail
. scripts/nccl-path.sh
. scripts/device-log.sh "tp-profile.txt" 300
M=/tmp/llm-check/llama3-8b
part() { [ -z "${ONLY:-}" ] || [ "$ONLY" = "$1" ]; }
T=200 run python3 scripts/llm-hf-check.py --make-only --models llama3-8b
if part profile; then
  for tp in 1 2; do
    run $C/llm --model $M --prompt-len 512 --max-new 64 --batch 1 --tp $tp --profile --json "$OUT/prof-b1-tp$tp.json"
    run $C/llm --model $M --prompt-len 128 --max-new 16 --batch 32 --tp $tp --profile --json "$OUT/prof-b32-tp$tp.json"
  done
fi
if part logits; then
  IDS=$(python3 -c 'import random; r=random.Random(52); print(",".join(str(r.randrange(1,128000)) for _ in range(200)))')
  for tp in 1 2; do
    run $C/llm --model $M --prompt-ids "$IDS" --max-new 32 --ignore-eos --tp $tp --logits-out "$OUT/logits-tp$tp.f32" --json "$OUT/tokens-tp$tp.json"
  done
  run python3 scripts/compare-logits.py "$OUT/logits-tp1.f32" "$OUT/logits-tp2.f32" --vocab 128256 --tokens "$OUT/tokens-tp1.json" "$OUT/tokens-tp2.json"
  rm -f "$OUT"/logits-tp*.f32
fi
if part 70b; then
  S=/tmp/llama3-70b-synthetic; mkdir -p $S
  cp scripts/llama3-70b-config.json $S/config.json  # Llama-3-70B's dimensions
  for i in 1 2 3; do
    T=300 run $C/llm --model $S --synthetic-weights --prompt-len 512 --max-new 32 --batch 1 --tp 2 --json "$OUT/b1-70b-tp2-$i.json"
  done
  T=300 run $C/llm --model $S --synthetic-weights --prompt-len 128 --max-new 16 --batch 1 --tp 2 --profile --json "$OUT/prof-70b-tp2.json"
fi
grep -E "^==|^exit|^\| |prompt|loaded|decode|prefill|error|Error|panicked|rel|same" "$L" | head -150
