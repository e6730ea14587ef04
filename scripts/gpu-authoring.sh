#!/usr/bin/env bash
# Issue 53 on a GPU in one device call: the selftest family (printf from 32 lanes, thread indices, the
# primitives), the bench's GPU tests, the cuda_std-names example's GPU tests, the rmsnorm and softmax
# examples (verified against f64, timed against a device copy), and the bounds-check cost example.
# Carry built by `scripts/authoring-carry.sh`; everything lands in $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/kernel-lab-out}; mkdir -p "$OUT"
C=.carry
cd $C && xz -d -f *.xz tests/*.xz 2>/dev/null; chmod +x * tests/* 2>/dev/null; cd ..
{ echo "commit $(tr '\n' ' ' < $C/COMMIT)"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv; } 2>&1 | tee "$OUT/authoring.txt"
run() { echo "== $*" | tee -a "$OUT/authoring.txt"; timeout 300 "$@" >> "$OUT/authoring.txt" 2>&1; echo "exit $?" | tee -a "$OUT/authoring.txt"; }
run $C/kernel-lab --family selftest --check
for t in $C/tests/*; do run "$t" --test-threads=1; done
for i in 1 2 3; do for e in rmsnorm softmax bounds_cost; do run $C/$e; done; done
grep -E "^==|exit|test result|FAILED|SKIPPED|panicked|error|checks cost|GB/s|printf|lane" "$OUT/authoring.txt" | head -80
