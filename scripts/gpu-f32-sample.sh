#!/usr/bin/env bash
# The f32 entry point over session 56's 120-shape corpus sample (seed 5601) against cublasSgemm, 3 processes
# (issue 48's f32 figure). Carry: scripts/slim-carry.sh gpu.
set -uo pipefail
. scripts/device-log.sh f32-sample.txt 200
for i in 1 2 3; do
  T=110 run $C/kernel-lab --family gemm --dtype f32 --reps 10 --warmup 2 --shapes-file results/2026-11-29-h200-session56/sample-120-seed5601.tsv --seed 611$i
done
grep -E "^==|^exit|summary|under 90" "$L" | head -30 || true
