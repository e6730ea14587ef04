#!/usr/bin/env bash
# Session 73 (issue 48): FP8 block scales at few rows and few tiles — fwb (fw2 with each step's sums promoted
# with their block scales, M <= 16) and f23 (f22's 64x64 tiles, not transposed, f3's promotion). The fp8 GPU
# tests (every step on ragged shapes with magnitudes varying by row and K block; the weight-only routes);
# compute-sanitizer memcheck, racecheck, synccheck of f23 and fwb at ragged shapes; then ROUNDS processes of
# f3, f23, fwb and fw2 (per tensor, for the promotion's cost) on SHAPES (default: seed 75's 28 shapes), each step
# interleaved with cuBLASLt. $OUT gets the log and json.tgz.
set -uo pipefail
. scripts/device-log.sh "s73-block.txt" 300
J=/tmp/s73b; mkdir -p $J
if [ -z "${SKIP_CHECKS:-}" ]; then
  run $C/tests/fp8 --test-threads=1
  for tool in memcheck racecheck synccheck; do
    T=120 run compute-sanitizer --tool $tool --error-exitcode 9 $C/kernel-lab --family fp8 --steps fp8:f23 --check --gemm-sizes 300x520x2064,129x264x4096
    T=120 run compute-sanitizer --tool $tool --error-exitcode 9 $C/kernel-lab --family fp8 --steps fp8:fwb --check --gemm-sizes 13x264x4096,3x392x400
  done
  # f15 stages its scales the same way (written by the producer, read after the full wait): racecheck's
  # report on it, for comparison with f23's.
  T=120 run compute-sanitizer --tool racecheck --error-exitcode 9 $C/kernel-lab --family fp8 --steps fp8:f15 --check --gemm-sizes 300x520x2064
fi
for i in $(seq 1 ${ROUNDS:-3}); do
  T=300 run $C/kernel-lab --family fp8 --steps ${STEPS:-fp8:f3,fp8:f23,fp8:fwb,fp8:fw2} --shapes-file ${SHAPES:-scripts/s73-block-fit.txt} --json $J/block-$i.json
done
tar czf "$OUT/json.tgz" -C $J .
