#!/usr/bin/env bash
# Session 110's fourth device call (issues 51, 48); carry: llm and kernel-lab from .carry/COMMIT.
#   (1) Where the runner's once-a-run cost sits (calls 1-2: over 64 steps the ring's wall 24-37 us a step over the
#       replayed graph's, over 512 steps none): `llm` now prints each decode step's wall time (the first, the
#       second, the median); FP8 ring, bf16 ring and FP8 plain, 3 processes alternating, 64 steps.
#       Predicted: the first step ~1.2-1.5 ms longer than the median, the others at the graph's time.
#   (2) On an H200 only: every per-tensor few-tile FP8 step at the 24 shapes timed on the H100 in calls 2-3
#       (scripts/fp8-fewtile-s110.tsv, scripts/fp8-fewtile-hold-11030.tsv; f27n128 was never timed on an H200), 3
#       processes: the shipped (H200) costs' pick within 5% of the fastest on this card. Predicted >= 90%.
set -uo pipefail
. scripts/device-log.sh s110-4.txt 150
J=/tmp/s110-4; mkdir -p $J
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
T=150 run $C/llm --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1
R="--model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos"
for i in 1 2 3; do
  run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_PIPELINE=ring $C/llm $R --fp8 --json $J/ring-$i.json
  run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_PIPELINE=ring $C/llm $R --json $J/bf16ring-$i.json
  run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_PIPELINE=0 $C/llm $R --fp8 --json $J/np-$i.json
done
grep -E "^decode steps one by one|^prompt" "$L" | tee $J/steps.txt
tar cJf $OUT/s110-4.tar.xz -C /tmp s110-4
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  cat scripts/fp8-fewtile-s110.tsv scripts/fp8-fewtile-hold-11030.tsv > /tmp/fewtile24.tsv
  for i in 1 2 3; do
    T=200 run $C/kernel-lab --family fp8 --steps f14,f21x2,f21x3,f21x4,f21x6,f22,f25,f27n128,f27n192 --shapes-file /tmp/fewtile24.tsv \
        --reps 6 --warmup 1 --seed 1104$i --json $J/fewtile-h200-p$i.json --out /tmp/r
    stamp "few-tile process $i"
    tar cJf $OUT/s110-4.tar.xz -C /tmp s110-4
  done
fi
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
