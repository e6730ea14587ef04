#!/usr/bin/env bash
# Session 79 (issue 51): the FP8 runner (w5) against the bf16 runner with d2's new default grid, the Llama-3-8B shape
# (synthetic weights, batch 1, 2048-token prompt, the graph replayed 100 times), ROUNDS rounds alternating; then one
# `--profile` of each (eager, an event after every launch). $OUT gets the log and json.tgz. Carry: .carry/{llm}.xz.
set -uo pipefail
. scripts/device-log.sh "s79-fp8-ratio.txt" 150
J=/tmp/s79; mkdir -p $J
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; tar czf "$OUT/json.tgz" -C $J .; }
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
T=150 run $C/llm --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1; stamp warm
R="--model $M --synthetic-weights --prompt-len 2048 --max-new 64 --ignore-eos --batch 1"
for i in $(seq 1 ${ROUNDS:-2}); do
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm $R --fp8 --json $J/fp8-$i.json
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm $R --json $J/bf16-$i.json
  stamp "round $i"
done
T=120 run $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 16 --batch 1 --ignore-eos --profile --json $J/prof-bf16.json
T=120 run $C/llm --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 16 --batch 1 --ignore-eos --profile --json $J/prof-fp8.json
stamp done
