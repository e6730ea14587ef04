#!/usr/bin/env bash
# Step w7 was removed in session 103 (a measured negative): this script needs a build before that, e.g. 6219ba09.
# Session 99 (issue 51): step w7 (each warp one contiguous run of the packed FP8 weights' steps, no block
# barrier). Prepared in session 99, which was lent no GPU: not yet run. The fp8_weights GPU tests (w7, w5, w1 on
# every case), memcheck of the decode test, `kernel-lab w8 --against w7` (the library's w5 against w7, each
# interleaved, PROCS processes), then the Llama-3-8B-shaped runner (synthetic weights, batch 1, 2048-token
# prompt, 64 steps, the graph replayed 100 times) with w7 (KERNEL_LAB_W8_STEP=w7), with w5 (the library's step)
# and bf16, alternating, ROUNDS processes (~6 minutes). The runner's session-100 features: scripts/gpu-s100-llm.sh.
# Carry: scripts/slim-carry.sh fp8_weights.
set -uo pipefail
. scripts/device-log.sh "s99-w7.txt" 300
J=$OUT/json; mkdir -p $J
run $C/tests/fp8_weights --test-threads=1; stamp tests
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
T=200 run $CS --tool memcheck --print-limit 5 $C/tests/fp8_weights --test-threads=1 weight_only_decode_matches_the_f64_product
stamp memcheck
for i in $(seq 1 ${PROCS:-3}); do
  T=120 run $C/kernel-lab w8 --against w7 --shapes 1x6144x4096,1x4096x4096,1x28672x4096,1x4096x14336,1x128256x4096,8x28672x4096,8x4096x14336,1x1024x4096,4x14336x4096 --json $J/w8-$i.json
  stamp "w8 $i"
done
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
T=120 run $C/llm --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1; stamp warm
for i in $(seq 1 ${ROUNDS:-3}); do
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_W8_STEP=w7 $C/llm --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/w7-$i.json
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/w5-$i.json
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/bf16-$i.json
  stamp "round $i"
done
python3 scripts/w8-runner-medians.py $J w7 w5 bf16 | tee -a "$L"
stamp done
