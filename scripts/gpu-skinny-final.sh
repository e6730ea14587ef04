#!/usr/bin/env bash
# Session 61, call 4: v33/v34 with the split by HBM and by rounds (layout::sgemm::split_k_waves) — the f32
# entry-point GPU test; v13, v33, v34 against cublasSgemm where the split could move, 3 processes; the f32
# entry point over session 56's 120-shape corpus sample (seed 5601) against cublasSgemm, 3 processes (the
# issue-48 f32 figure). Carry: scripts/slim-carry.sh gpu.
set -uo pipefail
. scripts/device-log.sh skinny-final.txt 300
J=/tmp/skinny-json; mkdir -p $J
T=300 run $C/tests/gpu --test-threads=1 the_f32_entry_point_takes_any_shape
S=2x5120x5120,1x5120x13824,1x4096x14336,1x6144x4096,4x4608x3584
for i in 1 2 3; do
  T=150 run $C/kernel-lab --family sgemm --steps sgemm:v13,v33,v34 --gemm-sizes $S --json $J/rule-$i.json
done
for i in 1 2 3; do
  T=200 run $C/kernel-lab --family gemm --dtype f32 --reps 10 --warmup 2 --shapes-file results/2026-11-29-h200-session56/sample-120-seed5601.tsv --seed 610$i --json $J/f32-120-$i.json
done
tar czf "$OUT/json.tar.gz" -C $J .
grep -E "^==|^exit|test result|FAILED|panicked|summary|under 90" "$L" | head -60 || true
