#!/usr/bin/env bash
# Session 98 (issue 48), call 2: the constants of d4, d9, d15, d16, d25 and d27 from call 1's calibration (their C
# stored through a warp's staging) in the shipped H200 model, against the model before (cost-before.tsv), on 70
# shapes whose bf16 pick that changes (40 of the corpus's 95, 30 of `offcorpus-shapes.py --n 3000 --seed 98`'s 80,
# drawn with seed 980: cost-changed-shapes.txt). One binary (.carry/kernel-lab, the new kernels and model), the old
# model by KERNEL_LAB_COST_FILE; 3 processes alternating.
set -uo pipefail
. scripts/device-log.sh s98-cost.txt 300
R=results/2026-12-04-h200-session98
S=$(paste -sd, $R/cost-changed-shapes.txt)
for i in 1 2 3; do
  for b in old new; do
    echo "== set cost process $i build $b" | tee -a "$L"
    if [ $b = old ]; then
      T=150 run env KERNEL_LAB_COST_FILE=$R/cost-before.tsv $C/kernel-lab --family gemm --dtype bf16 --reps 10 --warmup 2 --gemm-sizes $S --seed 982$i
    else
      T=150 run $C/kernel-lab --family gemm --dtype bf16 --reps 10 --warmup 2 --gemm-sizes $S --seed 982$i
    fi
  done
  stamp "process $i"
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
