#!/usr/bin/env bash
# Session 75 (issue 48, exploration): d2 at 1x64128x8192 (1002 CTAs of 1 MiB: 1.5 rounds of its 660 resident
# slots) with its default split (none) against 2 splits (KERNEL_LAB_DECODE_BLOCKS_PER_SM=8: 2004 CTAs of 512 KiB,
# as 1x128256x4096 runs unsplit), interleaved with cuBLAS, 3 processes each alternating. $OUT gets the log.
set -uo pipefail
. scripts/device-log.sh "s75-d2split.txt" 120
for i in 1 2 3; do
  for b in 1 8; do
    T=100 run env KERNEL_LAB_DECODE_BLOCKS_PER_SM=$b $C/kernel-lab --family gemm --dtype f16 --config d2 --gemm-sizes 1x64128x8192,16x64128x8192,1x128256x4096 --seed 753$i
  done
done
grep -E "^== |^d2 " "$L" | head -40
