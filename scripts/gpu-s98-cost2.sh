#!/usr/bin/env bash
# Session 98 (issue 48), call 3: the shipped model with call 1's d15, d16 and d27 only (call 2: its d4, d9 and d25
# lost where they changed picks) and d7/d11 weighed against d28 where they split K (margin 0, as d2 and d25), against
# the model and selection before (.carry/old/kernel-lab = call 2's binary with KERNEL_LAB_COST_FILE=cost-before.tsv:
# the same kernels), on 70 shapes whose bf16 pick changes (the 2 + 2 that the d7/d11 rule changes, 38 more of the
# corpus's 78 and 28 of `offcorpus-shapes.py --n 3000 --seed 98`'s 60, drawn with seed 981:
# cost-changed-shapes-2.txt); 3 processes alternating.
set -uo pipefail
. scripts/device-log.sh s98-cost2.txt 300
R=results/2026-12-04-h200-session98
S=$(paste -sd, $R/cost-changed-shapes-2.txt)
for i in 1 2 3; do
  for b in old new; do
    echo "== set cost process $i build $b" | tee -a "$L"
    if [ $b = old ]; then
      T=150 run env KERNEL_LAB_COST_FILE=$R/cost-before.tsv $C/old/kernel-lab --family gemm --dtype bf16 --reps 10 --warmup 2 --gemm-sizes $S --seed 983$i
    else
      T=150 run $C/kernel-lab --family gemm --dtype bf16 --reps 10 --warmup 2 --gemm-sizes $S --seed 983$i
    fi
  done
  stamp "process $i"
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
