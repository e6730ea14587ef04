#!/usr/bin/env bash
# Session 97 (issue 48), d28's new epilogue (the split's partial transposed in shared memory, 4-column runs of
# whole rows stored 8 bytes at a time): the bench's GPU tests (every HGEMM step on ragged shapes), memcheck and
# racecheck of d28 forced at ragged shapes, then the GEMM entry before (.carry/old/kernel-lab, 3ad7ea7) and after
# (.carry/kernel-lab) on the shapes whose pick is a d28 form: every m128 and m64 one of the corpus
# (`shapes.py gemm --tp 1,2,4,8 --m 1…8192`) and 24 of its 16-row ones drawn at random (SHAPES=d28-shapes-corpus.txt),
# bf16, 3 processes alternating (the off-corpus shapes: scripts/gpu-s97-d28b.sh).
set -uo pipefail
. scripts/device-log.sh s97-d28-${SHAPES:-d28-shapes-corpus.txt} 300
if [ -z "${SKIP_TESTS:-}" ]; then
  T=240 run $C/tests/gpu --test-threads 1
  for pair in bf16:d28m128x2-bf16 f16:d28m64x4 bf16:d28x8-bf16 f16:d28m128x8; do
    dt=${pair%%:*}; cfg=${pair#*:}
    for tool in memcheck racecheck; do
      T=120 run compute-sanitizer --tool $tool --error-exitcode 9 $C/kernel-lab --family gemm --dtype $dt --config $cfg --gemm-sizes 200x1024x2048,5x520x1000,130x136x4104 --reps 2 --warmup 1
    done
  done
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result" "$L" | tail -12
  stamp "tests"
fi
S=$(paste -sd, results/2026-12-04-h200-session97/${SHAPES:-d28-shapes-corpus.txt})
T=200 gemm_old_new d28 971 bf16 --gemm-sizes $S
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
