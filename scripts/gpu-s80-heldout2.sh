#!/usr/bin/env bash
# Session 80, d28's final choice (issue 48: in place of d2/d25 where predicted faster, of a whole-K tile only by
# the override margin): the entry against cuBLAS, bf16, before (.carry/old: the build of 5c276ec, without d28)
# and after, 3 processes each alternating, on 30 shapes no call had timed: `shapes.py gemm --tp 2,4,8 --m
# 3,6,12,24,48,96,128` whose final pick is d28, drawn with random.seed(8081)
# (results/2026-12-02-h200-session80/heldout2-final-d28.txt).
set -uo pipefail
. scripts/device-log.sh s80-heldout2.txt 200
(cd $C/old && xz -d -f *.xz 2>/dev/null; chmod +x * 2>/dev/null)
S=$(paste -sd, results/2026-12-02-h200-session80/heldout2-final-d28.txt)
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; }
for i in 1 2 3; do
  for b in old new; do
    bin=$C/kernel-lab; [ $b = old ] && bin=$C/old/kernel-lab
    echo "== set heldout2-final-d28 process $i build $b" | tee -a "$L"
    T=120 run $bin --family gemm --dtype bf16 --reps 10 --warmup 2 --gemm-sizes $S --seed 81$i
  done
  stamp "process $i"
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
