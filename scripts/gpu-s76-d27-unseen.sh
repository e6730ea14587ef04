#!/usr/bin/env bash
# Session 76 (issue 48): the final entry (d27, the override weighed before the refinement) against the build
# without d27 (.carry/kernel-lab-old, 39f99d1) on 24 corpus shapes whose pick changes and that no earlier call
# timed (results/2026-12-01-h200-session76/d27-unseen-24.tsv, seed 77), f16, alternating, 3 processes each.
set -uo pipefail
. scripts/device-log.sh s76-d27-unseen.txt 120
S=results/2026-12-01-h200-session76/d27-unseen-24.tsv
for i in 1 2 3; do
  for b in kernel-lab-old kernel-lab; do
    T=100 run $C/$b --family gemm --dtype f16 --reps 10 --warmup 2 --shapes-file $S --seed 780$i
  done
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
