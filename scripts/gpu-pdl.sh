#!/usr/bin/env bash
# Programmatic dependent launch through the decode step (the runner's kernels, d2, decode attention, w1) on
# a GPU, in one call of under 10 minutes: the GPU tests that chain PDL launches (llm `kernels`, `gpu`'s PDL
# and GEMM tests, `decode`, `fp8_weights`); decode attention and d2 from their sm_90a builds (PDL-aware) against
# their sm_80 builds (KERNEL_LAB_WITHHOLD=sm_90a), alternating, 3 processes each; the tiny HF checkpoints
# against HF; `llm` at batch 1 on the Llama-3-8B-shaped checkpoint, bf16 and --fp8, with PDL and with
# KERNEL_LAB_PDL=0 (the same binary launching plainly), alternating, 3 processes each.
# Carry: scripts/slim-carry.sh kernels gpu decode fp8_weights. JSON results: $OUT/json.tar.gz.
set -uo pipefail
. scripts/device-log.sh pdl.txt 300
J=/tmp/pdl-json; mkdir -p $J
M=/tmp/llm-check/llama3-8b
T=60 run $C/tests/kernels
T=120 run $C/tests/gpu pdl_launches_wait_for_the_previous_grid the_gemm_entry_point split_k_steps
T=120 run $C/tests/decode
T=120 run $C/tests/fp8_weights
S=1x32x8x4096x128,1x32x8x32768x128
G=1x4096x4096,1x6144x4096,1x4096x14336,1x28672x4096
for i in 1 2 3; do
  T=90 run $C/kernel-lab decode --shapes $S --dtype bf16 --json $J/decode-sm90a-$i.json
  T=90 run env KERNEL_LAB_WITHHOLD=sm_90a $C/kernel-lab decode --shapes $S --dtype bf16 --json $J/decode-sm80-$i.json
  T=90 run $C/kernel-lab --family gemm --config d2-bf16 --dtype bf16 --gemm-sizes $G --json $J/d2-sm90a-$i.json --out /tmp/r
  T=90 run env KERNEL_LAB_WITHHOLD=sm_90a $C/kernel-lab --family gemm --config d2-bf16 --dtype bf16 --gemm-sizes $G --json $J/d2-sm80-$i.json --out /tmp/r
done
T=120 run python3 scripts/llm-hf-check.py --make-only --models llama3-8b
T=120 run python3 scripts/llm-hf-check.py --llm $C/llm --report-only --out "$OUT/hf-check.md"
for i in 1 2 3; do
  for fmt in bf16 fp8; do
    a=(); [ $fmt = fp8 ] && a=(--fp8)
    T=60 run $C/llm --model $M --prompt-len 2048 --max-new 64 --batch 1 "${a[@]}" --json $J/$fmt-pdl-$i.json
    T=60 run env KERNEL_LAB_PDL=0 $C/llm --model $M --prompt-len 2048 --max-new 64 --batch 1 "${a[@]}" --json $J/$fmt-plain-$i.json
  done
done
tar czf "$OUT/json.tar.gz" -C $J .
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|^\| |prompt|ms per|GPU:|model |launches:|SKIPPED" "$L" | grep -v "^| 1x32x8x[0-9]*x128 | ad1" | head -200
