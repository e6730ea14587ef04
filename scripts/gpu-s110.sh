#!/usr/bin/env bash
# Session 110's first device call (issues 51, 48). Carry (.carry/, stripped and xz'd): kernel-lab and llm built from
# .carry/COMMIT, tests/chunked and tests/kernels (llm's GPU tests) from the same commit.
#   (0) llm's kernel test and its chunked test: session 109's fix (each test on a stream of its own, so the steps are
#       graphs; the plain loop with the ring off, then `decode_steps` with it on) had not run on a GPU.
#   (1) The Llama-3-8B-shaped runner at batch 1 (synthetic weights, 2048-token prompt, 64 steps, the graph replayed
#       100 times), 5 processes of each alternating: FP8 and bf16, each with the ring (the default) and the plain
#       loop (KERNEL_LAB_LLM_PIPELINE=0). Predicted on an H100: the ring's wall within 0.3% of its GPU time, the
#       plain loop's 1.0-1.5% over it; bf16 / FP8 wall with the ring 1.70-1.71x (session 108: GPU 1.707x, wall
#       1.692x with the plain loop).
#   (2) The FP8 entry on a fresh corpus draw (`shapes.py gemm --sample 40 --seed 11001`, fitted by nothing: scripts/fp8-draw-11001.tsv) plus
#       session 106's three H100 shapes under 0.85x (256x4096x4096, 8x3072x4096, 4x3072x3072), 3 processes.
#       Predicted: per tensor >= 1.00x cuBLASLt's default mode, at most 2 under 0.85x; block >= 1.05x its block mode.
#       ENTRY=0 skips (2).
set -uo pipefail
. scripts/device-log.sh s110.txt 150
J=/tmp/s110; mkdir -p $J
T=120 run $C/tests/kernels --test-threads 1
T=300 run $C/tests/chunked --test-threads 1
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
T=150 run $C/llm --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1
R="--model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos"
for i in 1 2 3 4 5; do
  run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_PIPELINE=0 $C/llm $R --fp8 --json $J/np-$i.json
  run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_PIPELINE=ring $C/llm $R --fp8 --json $J/ring-$i.json
  run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_PIPELINE=0 $C/llm $R --json $J/bf16np-$i.json
  run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_PIPELINE=ring $C/llm $R --json $J/bf16ring-$i.json
  stamp "runner round $i"
  tar cJf $OUT/s110.tar.xz -C /tmp s110
done
python3 scripts/w8-runner-medians.py $J ring np bf16ring | tee -a "$L"
python3 scripts/w8-runner-medians.py $J np bf16np | tee -a "$L"
for i in $([ "${ENTRY:-1}" = 1 ] && echo 1 2 3); do
  run $C/kernel-lab --family fp8 --entry --shapes-file scripts/fp8-draw-11001.tsv --reps ${REPS:-6} --warmup ${WARM:-1} --seed 1100$i --json $J/entry-p$i.json --out /tmp/r
  stamp "entry process $i"
  tar cJf $OUT/s110.tar.xz -C /tmp s110
done
[ "${ENTRY:-1}" = 1 ] && python3 scripts/fp8-entry-medians.py $J/entry-p*.json | tee -a "$L"
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
