#!/usr/bin/env bash
# Session 86: the fp8 GPU tests (the entry point's test at a shape that picks f25, on symmetric data), then the f32
# GEMM entry point over session 83's corpus sample as far as DEADLINE allows (scripts/gpu-s84-sample.sh, FAMILY=f32).
set -uo pipefail
OUT=${OUT:-/tmp/kernel-lab-out}; mkdir -p "$OUT"
(cd .carry && xz -d -f *.xz */*.xz 2>/dev/null; chmod +x * */* 2>/dev/null)
timeout 200 .carry/tests/fp8 --test-threads 1 > "$OUT/fp8-tests.txt" 2>&1; echo "fp8 tests exit $?" | tee -a "$OUT/fp8-tests.txt"
grep -E "test result|FAILED|panicked" "$OUT/fp8-tests.txt"
FAMILY=f32 DEADLINE=${DEADLINE:-430} bash scripts/gpu-s84-sample.sh
