#!/usr/bin/env bash
# Session 61, call 7: v24's split by rounds (layout::sgemm::split_k_rounds) against its base rule
# (KERNEL_LAB_SGEMM_FIXED_SPLIT=3,256: v14's (3, 256)), --config v24, alternating, 3 processes each, at the
# four shapes the rates were read off and ten held-out shapes where the pick moves (four from session 56's
# sample, six drawn from the corpus with seed 6161); then the f32 entry-point GPU test.
# Carry: scripts/slim-carry.sh gpu.
set -uo pipefail
. scripts/device-log.sh v24-rounds.txt 150
S=64x57344x8192,128x10240x8192,512x3584x14336,64x64128x3072,1024x2048x4096,128x16000x8192,2048x1024x2048,256x8192x8192,512x8192x1024,128x57344x8192,128x14336x4096,256x9216x3072,256x16000x4096,128x14336x3584
for i in 1 2 3; do
  T=150 run $C/kernel-lab --family gemm --dtype f32 --config v24 --gemm-sizes $S --reps 10 --warmup 2
  T=150 run env KERNEL_LAB_SGEMM_FIXED_SPLIT=3,256 $C/kernel-lab --family gemm --dtype f32 --config v24 --gemm-sizes $S --reps 10 --warmup 2
done
T=300 run $C/tests/gpu --test-threads=1 the_f32_entry_point_takes_any_shape
grep -E "^==|^exit|test result|FAILED|panicked" "$L" | head -30 || true
