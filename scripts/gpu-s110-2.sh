#!/usr/bin/env bash
# Session 110's second device call (issues 51, 48); the carry as gpu-s110.sh's.
#   (1) Where the FP8 runner's wall time goes over its GPU time on an H100 (call 1: ring 3.338 ms a step against
#       3.301 of graph replays, 37 us; bf16 16 us): 64 steps against 512, 3 processes alternating, FP8 ring, FP8
#       plain loop, bf16 ring. A cost paid once a run shrinks 8x a step at 512; one paid each step stays.
#       Predicted: mostly once a run (the ring leaves nothing between two graphs), FP8 ring at 512 steps <= 12 us over.
#   (2) Every per-tensor FP8 step the few-tile choice weighs, at 8 few-tile shapes (scripts/fp8-fewtile-s110.tsv:
#       call 1's picks under 0.95x cuBLASLt and neighbours), 3 processes: is a faster step there than the pick
#       (256x4096x4096: f22 0.774x)? Predicted: f21x2/f21x4 within 0.90-1.0x of cuBLASLt at 256x4096x4096.
set -uo pipefail
. scripts/device-log.sh s110-2.txt 150
J=/tmp/s110-2; mkdir -p $J
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
T=150 run $C/llm --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1
for i in 1 2 3; do
  for n in 64 512; do
    R="--model $M --synthetic-weights --prompt-len 2048 --max-new $n --batch 1 --ignore-eos"
    run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_PIPELINE=ring $C/llm $R --fp8 --json $J/ring$n-$i.json
    run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_PIPELINE=0 $C/llm $R --fp8 --json $J/np$n-$i.json
    run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_PIPELINE=ring $C/llm $R --json $J/bf16ring$n-$i.json
  done
  stamp "runner round $i"
  tar cJf $OUT/s110-2.tar.xz -C /tmp s110-2
done
for n in 64 512; do python3 scripts/w8-runner-medians.py $J ring$n np$n bf16ring$n | tee -a "$L"; done
for i in 1 2 3; do
  T=200 run $C/kernel-lab --family fp8 --steps f14,f21x2,f21x3,f21x4,f21x6,f22,f25,f27n128,f27n192 --shapes-file scripts/fp8-fewtile-s110.tsv \
      --reps 10 --warmup 2 --seed 1102$i --json $J/steps-p$i.json --out /tmp/r
  stamp "steps process $i"
  tar cJf $OUT/s110-2.tar.xz -C /tmp s110-2
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
