#!/usr/bin/env bash
# Session 72 (issue 48): FP8 f22 (per tensor, 64x64 tiles computed transposed). The fp8 GPU tests (every step on
# ragged shapes, f22 included); compute-sanitizer memcheck, racecheck, synccheck of f22 at two ragged shapes;
# then ROUNDS processes of f14, f21x4 and f22 on the 31 shapes of calls 1 and 3 (scripts/s72-f22-shapes.txt), each
# step interleaved with cuBLASLt. $OUT gets the log and json.tgz.
set -uo pipefail
. scripts/device-log.sh "s72-f22.txt" 300
J=/tmp/s72f; mkdir -p $J
run $C/tests/fp8 --test-threads=1
for tool in memcheck racecheck synccheck; do
  T=120 run compute-sanitizer --tool $tool --error-exitcode 9 $C/kernel-lab --family fp8 --steps fp8:f22 --check --gemm-sizes 300x520x2064,129x264x4096
done
for i in $(seq 1 ${ROUNDS:-3}); do
  T=300 run $C/kernel-lab --family fp8 --steps fp8:f14,fp8:f21x4,fp8:f22 --shapes-file scripts/s72-f22-shapes.txt --json $J/f22-$i.json
done
tar czf "$OUT/json.tgz" -C $J .
