#!/usr/bin/env bash
# Session 97 (issue 48), call 3: d28's constants from call 2's calibration (the new epilogue) in the shipped H200
# model, against the model before, on every shape whose bf16 pick that changes (37 of the corpus, 13 of
# `offcorpus-shapes.py --n 3000 --seed 97`: d28-cost-changed.txt). One binary (.carry/kernel-lab, the new
# kernels), the two models by KERNEL_LAB_COST_FILE; 3 processes alternating.
set -uo pipefail
. scripts/device-log.sh s97-d28c.txt 300
R=results/2026-12-04-h200-session97
S=$(paste -sd, $R/d28-cost-changed.txt)
for i in 1 2 3; do
  for b in old new; do
    f=$R/cost-before.tsv; [ $b = new ] && f=kernel-lab/src/gemm/data/cost-h200.tsv
    echo "== set cost process $i build $b" | tee -a "$L"
    T=150 run env KERNEL_LAB_COST_FILE=$f $C/kernel-lab --family gemm --dtype bf16 --reps 10 --warmup 2 --gemm-sizes $S --seed 973$i
  done
  stamp "process $i"
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
