#!/usr/bin/env bash
# Session 79 (issues 48, 51): d2's default grid (two blocks an SM where the tiles leave SMs idle, splits >= 8 K
# tiles) against one block an SM (KERNEL_LAB_DECODE_BLOCKS_PER_SM=1, the previous default). The HGEMM GPU tests; the
# GEMM entry point (bf16, each shape interleaved with cuBLAS) on 30 held-out shapes (shapes.py gemm --tp 4,8
# --m 1,3,6,12, where the entry runs d2 and the new rule changes its split; none of them measured before; seed
# 7979), 3 processes each alternating; the Llama-3-8B-shaped runner at batch 1, both settings, 3 rounds.
# $OUT gets the log and json.tgz (each entry process's output). Carry: .carry/{kernel-lab,llm}.xz, tests/gpu.xz.
set -uo pipefail
. scripts/device-log.sh "s79-auto.txt" 200
J=/tmp/s79; mkdir -p $J
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; tar czf "$OUT/json.tgz" -C $J .; }
T=240 run $C/tests/gpu --test-threads=1; stamp tests
S=12x1536x4096,12x1920x5120,12x2048x3584,12x2560x8192,12x2752x4096,12x3072x2048,12x3456x5120,12x3840x5120,12x4000x5120,12x4000x8192,1x1920x5120,1x2304x3072,1x3072x2048,1x3840x5120,1x4000x5120,1x4000x8192,3x1280x8192,3x1536x4096,3x2048x3584,3x2304x3072,3x2560x8192,3x2752x4096,3x3840x5120,6x1920x5120,6x2304x3072,6x2560x8192,6x3072x2048,6x3072x4096,6x4000x5120,6x4000x8192
for i in 1 2 3; do
  for b in auto 1; do
    echo "== entry, blocks/SM $b, process $i" | tee -a "$L"
    if [ $b = auto ]; then E=""; else E="KERNEL_LAB_DECODE_BLOCKS_PER_SM=1"; fi
    env $E timeout 300 $C/kernel-lab --family gemm --dtype bf16 --gemm-sizes $S --seed 794$i > $J/entry-$b-$i.txt 2>&1
    echo "exit $?" | tee -a "$L"
  done
  stamp "entry round $i"
done
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
T=150 run $C/llm --model $M --synthetic-weights --prompt-len 128 --max-new 8 --batch 1; stamp warm
R="--model $M --synthetic-weights --prompt-len 2048 --max-new 64 --ignore-eos --batch 1"
for i in 1 2 3; do
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm $R --json $J/llm-auto-$i.json
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_DECODE_BLOCKS_PER_SM=1 $C/llm $R --json $J/llm-1-$i.json
  stamp "runner round $i"
done
grep -E "test result|panicked|SKIPPED" "$L" | head
stamp done
