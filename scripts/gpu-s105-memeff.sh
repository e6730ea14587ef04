#!/usr/bin/env bash
# Session 105 (issue 48), call 5: the GEMM entry with the shipped H100 model ("old") against the same build
# with KERNEL_LAB_COST_FILE=scripts/s105-cost-h100-tiles.tsv ("new": the tile steps' memory efficiency from
# call 1's H100 calibration) on every other corpus shape whose entry pick that changes
# (scripts/s105-mem-eff-changed.txt, 28 of 56; SHAPES=scripts/s105-mem-eff-changed-2.txt the other 28, call 6), bf16, 3 processes alternating, each against cuBLAS.
# Carry: scripts/slim-carry.sh
set -uo pipefail
. scripts/device-log.sh s105-memeff${SHAPES:+-2}.txt 300
S=$(paste -sd, ${SHAPES:-scripts/s105-mem-eff-changed.txt})
for i in 1 2 3; do
  for b in old new; do
    echo "== set memeff process $i build $b" | tee -a "$L"
    if [ $b = new ]; then export KERNEL_LAB_COST_FILE=$PWD/scripts/s105-cost-h100-tiles.tsv; else unset KERNEL_LAB_COST_FILE; fi
    T=120 run $C/kernel-lab --family gemm --dtype bf16 --reps 10 --warmup 2 --gemm-sizes $S --seed 1050$i
  done
  stamp "process $i"
done
unset KERNEL_LAB_COST_FILE
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
