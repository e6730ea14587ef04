#!/usr/bin/env bash
# Session 76 (issue 48): the GEMM entry point before d27 (.carry/kernel-lab-old: 39f99d1's build, the same
# kernels and model without d27) and after (this build: d27 a candidate, its shipped constants, the rules'
# d9/d16 refined to d27 by the model) on 30 of the 75 corpus shapes whose pick changes to d27
# (results/2026-12-01-h200-session76/d27-changed-30.tsv, drawn with seed 76), f16, and the first 15 in bf16;
# old and new alternating process by process, 3 each, every shape interleaved with cuBLAS.
set -uo pipefail
. scripts/device-log.sh s76-d27-entry.txt 200
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; }
S=results/2026-12-01-h200-session76/d27-changed-30.tsv
head -15 $S > /tmp/s15.tsv
for i in 1 2 3; do
  for b in kernel-lab-old kernel-lab; do
    T=150 run $C/$b --family gemm --dtype f16 --reps 10 --warmup 2 --shapes-file $S --seed 778$i
    T=100 run $C/$b --family gemm --dtype bf16 --reps 10 --warmup 2 --shapes-file /tmp/s15.tsv --seed 779$i
  done
  stamp "round $i"
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
