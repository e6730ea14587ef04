#!/usr/bin/env bash
# Session 97 (issue 48), call 5: session 96's fresh corpus sample (`shapes.py gemm --sample 200 --seed 9696`)
# at the 31 shapes whose bf16 pick is a d28 form before or after this session (`kernel-lab rank`; every other
# shape's pick and kernel are unchanged): .carry/old/kernel-lab (3ad7ea7) against .carry/kernel-lab (3f02cb0's
# kernels) with the session's shipped model (KERNEL_LAB_COST_FILE), bf16, 3 processes alternating.
set -uo pipefail
. scripts/device-log.sh s97-sample-d28.txt 300
S=$(paste -sd, results/2026-12-04-h200-session97/sample9696-d28.txt)
for i in 1 2 3; do
  echo "== set sample process $i build old" | tee -a "$L"
  T=150 run $C/old/kernel-lab --family gemm --dtype bf16 --reps 10 --warmup 2 --gemm-sizes $S --seed 975$i
  echo "== set sample process $i build new" | tee -a "$L"
  T=150 run env KERNEL_LAB_COST_FILE=kernel-lab/src/gemm/data/cost-h200.tsv $C/kernel-lab --family gemm --dtype bf16 --reps 10 --warmup 2 --gemm-sizes $S --seed 975$i
  stamp "process $i"
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
