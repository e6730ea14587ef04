#!/usr/bin/env bash
# Session 110's sixth device call (issue 51); carry: llm from .carry/COMMIT.
#   Whether the ring's 25 us a step over the replayed graph (calls 4-5) is the host's stream queries while it spins
#   (`cuStreamQuery` every 1024 spins, ~30 a step): KERNEL_LAB_LLM_SPIN_QUERY=1024 (as shipped) against 1048576 (about
#   none in a step), FP8 and bf16, 3 processes alternating, 64 steps. Predicted: if the queries are the cause,
#   1048576's wall within 5 us of the GPU time; else the same.
set -uo pipefail
. scripts/device-log.sh s110-6.txt 150
J=/tmp/s110-6; mkdir -p $J
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
T=150 run $C/llm --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1
R="--model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos"
for i in 1 2 3; do
  run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_SPIN_QUERY=1024 $C/llm $R --fp8 --json $J/q1k-$i.json
  run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_SPIN_QUERY=1048576 $C/llm $R --fp8 --json $J/q1m-$i.json
  run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_SPIN_QUERY=1024 $C/llm $R --json $J/bf16q1k-$i.json
  run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_SPIN_QUERY=1048576 $C/llm $R --json $J/bf16q1m-$i.json
done
python3 scripts/w8-runner-medians.py $J q1m q1k bf16q1k | tee -a "$L"
python3 scripts/w8-runner-medians.py $J q1m q1k bf16q1m | tee -a "$L"
tar cJf $OUT/s110-6.tar.xz -C /tmp s110-6
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
