#!/usr/bin/env bash
# Session 98 (issue 48): one binary's GEMM entry (.carry/kernel-lab: the kernels and the shipped model under test)
# against a model and selection before ($OLD, default the same binary, with KERNEL_LAB_COST_FILE=cost-before.tsv),
# on the shapes of $SHAPES (whose bf16 pick the change moves), bf16, 3 processes alternating; seeds $SEED1..3.
#   call 2: the constants of d4, d9, d15, d16, d25 and d27 from call 1's calibration (their C stored through a
#           warp's staging) against the model before, on 70 of the 175 picks that changes (40 of the corpus's 95,
#           30 of `offcorpus-shapes.py --n 3000 --seed 98`'s 80, drawn with seed 980):
#           `scripts/gpu-s98-cost.sh` (SHAPES=cost-changed-shapes.txt, SEED=982, LOG=s98-cost.txt).
#   call 3: call 1's d15, d16 and d27 only (call 2: d4's, d9's and d25's lost where they moved picks) and d7/d11
#           weighed against d28 where they split K, against call 2's binary with the model before (the same
#           kernels), on 70 of the 138 changed picks (the 2 + 2 the d7/d11 rule changes, 38 more of the corpus's
#           78 and 28 of the off-corpus 60, seed 981): `SHAPES=cost-changed-shapes-2.txt OLD=.carry/old/kernel-lab
#           SEED=983 LOG=s98-cost2.txt scripts/gpu-s98-cost.sh`.
set -uo pipefail
. scripts/device-log.sh ${LOG:-s98-cost.txt} 300
R=results/2026-12-04-h200-session98
S=$(paste -sd, $R/${SHAPES:-cost-changed-shapes.txt})
for i in 1 2 3; do
  for b in old new; do
    echo "== set cost process $i build $b" | tee -a "$L"
    if [ $b = old ]; then
      T=150 run env KERNEL_LAB_COST_FILE=$R/cost-before.tsv ${OLD:-$C/kernel-lab} --family gemm --dtype bf16 --reps 10 --warmup 2 --gemm-sizes $S --seed ${SEED:-982}$i
    else
      T=150 run $C/kernel-lab --family gemm --dtype bf16 --reps 10 --warmup 2 --gemm-sizes $S --seed ${SEED:-982}$i
    fi
  done
  stamp "process $i"
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
