#!/usr/bin/env bash
# Session 98 (issue 48): the one-CTA swapped decode tiles (d4, d9, d12, d13 through the exchange; d14–d16, d25, d27
# through their own staging) store C through a warp-private staging — stmatrix.trans, then 16-byte rows of C —
# instead of 2-byte stores of accumulator pairs. The bench's GPU tests (every HGEMM step on ragged shapes against
# f64, the entry at any shape, strided operands), memcheck and racecheck of the changed kernels forced at ragged
# shapes, `calibrate --dtype f16`, then the entry before (.carry/old/kernel-lab) and after (.carry/kernel-lab) on
# 56 corpus shapes whose bf16 pick is a changed kernel (drawn per kernel, seed 98:
# results/2026-12-04-h200-session98/staged-shapes-corpus.txt), bf16, 3 processes alternating.
# Carry: .carry/kernel-lab, .carry/old/kernel-lab, .carry/tests/bench-gpu.
set -uo pipefail
. scripts/device-log.sh s98-staged.txt 300
if [ -z "${SKIP_TESTS:-}" ]; then
  for t in every_hgemm_step the_gemm_entry_point_takes_any_shape the_gemm_api_takes_strided; do T=200 run $C/tests/bench-gpu --test-threads 1 $t; done
  for pair in bf16:d16-bf16 f16:d27 bf16:d9-bf16 f16:d15 bf16:d13-bf16 f16:d25; do
    dt=${pair%%:*}; cfg=${pair#*:}
    for tool in memcheck racecheck; do
      T=120 run compute-sanitizer --tool $tool --error-exitcode 9 $C/kernel-lab --family gemm --dtype $dt --config $cfg --gemm-sizes 200x1032x520,5x520x1000,130x136x4104,77x1001x300 --reps 2 --warmup 1
    done
  done
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result" "$L" | tail -20
  stamp tests
  T=120 run $C/kernel-lab calibrate --dtype f16 --out $OUT/cost-s98.tsv --samples $OUT/cal-samples-s98.tsv
  stamp calibrate
fi
S=$(paste -sd, results/2026-12-04-h200-session98/staged-shapes-corpus.txt)
T=200 gemm_old_new staged 981 bf16 --gemm-sizes $S
grep -E "^exit [1-9]|panicked|FAILED|failed" "$L" | head || true
xz -9 -f "$L"
