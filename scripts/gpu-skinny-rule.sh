#!/usr/bin/env bash
# SGEMM v33/v34's split by waves with an SM's blocks sharing its rate (session 61, call 3): the f32
# entry-point GPU test; v13, v33, v34 against cublasSgemm where the new split moves, 3 processes; the
# entry point (its f32 rule: v34 / v33 / v23 at M ≤ 16) against cublasSgemm on 24 corpus shapes with M ≤ 16
# drawn with seed 6101 (results/2026-11-30-h200-session61/skinny-sample.tsv), 3 processes.
# Carry: scripts/slim-carry.sh gpu.
set -uo pipefail
. scripts/device-log.sh skinny-rule.txt 300
J=/tmp/skinny-json; mkdir -p $J
T=300 run $C/tests/gpu --test-threads=1 the_f32_entry_point_takes_any_shape
S=1x6144x4096,2x5120x5120,4x4608x3584,1x4096x4096,1x14336x4096,1x4096x14336,1x5120x13824
F=results/2026-11-30-h200-session61/skinny-sample.tsv
for i in 1 2 3; do
  T=200 run $C/kernel-lab --family sgemm --steps sgemm:v13,v33,v34 --gemm-sizes $S --json $J/rule-$i.json
  T=200 run $C/kernel-lab --family gemm --dtype f32 --shapes-file $F --json $J/sample-$i.json
done
tar czf "$OUT/json.tar.gz" -C $J .
grep -E "^==|^exit|test result|FAILED|panicked|summary|under 90" "$L" | head -60 || true
