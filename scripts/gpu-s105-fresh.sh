#!/usr/bin/env bash
# Session 105 (issue 48), call 7: the GEMM entry with the H100 model as shipped since this session (its constants
# given by KERNEL_LAB_COST_FILE=scripts/s105-cost-h100-tiles.tsv, the same numbers, so the carry of calls 2-6 serves)
# against cuBLAS on a fresh draw nothing was tuned on (`shapes.py gemm --sample 60 --seed 10510`), bf16, 3 processes.
# Carry: scripts/slim-carry.sh
set -uo pipefail
. scripts/device-log.sh s105-fresh.txt 300
export KERNEL_LAB_COST_FILE=$PWD/scripts/s105-cost-h100-tiles.tsv
for i in 1 2 3; do
  echo "== set fresh-10510 process $i build new" | tee -a "$L"
  T=80 run $C/kernel-lab --family gemm --dtype bf16 --reps 10 --warmup 2 --shapes-file scripts/s105-sample-60-seed10510.tsv --seed 10510$i
  stamp "process $i"
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
