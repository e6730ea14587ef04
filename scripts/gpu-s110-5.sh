#!/usr/bin/env bash
# Session 110's fifth device call (issues 51, 48); carry: llm, kernel-lab, tests/chunked from .carry/COMMIT.
#   (0) llm's chunked test (decode_steps against the plain loop, a stop taking back the steps run ahead) with one
#       step queued (the default) and with two (KERNEL_LAB_LLM_AHEAD_DEPTH=2).
#   (1) Call 4 found the ring's wall 24 us a step over the replayed graph in every step, not once a run (the first
#       step +55-100 us). The replay queues all its graphs; the ring one beyond the step waited for. Two queued:
#       FP8 and bf16, depth 1 and 2, 3 processes alternating, 64 steps. Predicted: if the queue depth is the
#       cause, depth 2's wall within 5 us of the GPU time (bf16 / FP8 wall >= 1.70x); else depth 1 = depth 2.
#   (2) On an H200 only: call 4's few-tile FP8 steps at 24 shapes (reps 4), 3 processes.
set -uo pipefail
. scripts/device-log.sh s110-5.txt 150
J=/tmp/s110-5; mkdir -p $J
T=300 run $C/tests/chunked --test-threads 1
T=300 run env KERNEL_LAB_LLM_AHEAD_DEPTH=2 $C/tests/chunked --test-threads 1
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
T=150 run $C/llm --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1
R="--model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos"
for i in 1 2 3; do
  for d in 1 2; do
    run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_AHEAD_DEPTH=$d $C/llm $R --fp8 --json $J/d$d-$i.json
    run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_AHEAD_DEPTH=$d $C/llm $R --json $J/bf16d$d-$i.json
  done
done
python3 scripts/w8-runner-medians.py $J d2 d1 bf16d1 | tee -a "$L"
python3 scripts/w8-runner-medians.py $J d2 d1 bf16d2 | tee -a "$L"
tar cJf $OUT/s110-5.tar.xz -C /tmp s110-5
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  cat scripts/fp8-fewtile-s110.tsv scripts/fp8-fewtile-hold-11030.tsv > /tmp/fewtile24.tsv
  for i in 1 2 3; do
    T=200 run $C/kernel-lab --family fp8 --steps f14,f21x2,f21x3,f21x4,f21x6,f22,f25,f27n128,f27n192 --shapes-file /tmp/fewtile24.tsv \
        --reps 4 --warmup 1 --seed 1105$i --json $J/fewtile-h200-p$i.json --out /tmp/r
    stamp "few-tile process $i"
    tar cJf $OUT/s110-5.tar.xz -C /tmp s110-5
  done
fi
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
