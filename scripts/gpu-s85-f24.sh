#!/usr/bin/env bash
# Session 85 (issue 48): FP8 f24 (f22's 64x64 tiles with K split over a cluster, two CTAs an SM). The fp8 GPU tests
# (every step on ragged shapes, f24x2 … x8 included; gemm_fp8's padded K and N, first run); compute-sanitizer memcheck,
# racecheck and synccheck of f24x3 at two ragged shapes; then ROUNDS processes of f22, f24x2 … f24x8 and f14 on the 36
# shapes of scripts/s85-f24-shapes.txt (32-row corpus shapes: session 84's sample and `shapes.py gemm --m 32 --sample 16
# --seed 8501`; nine of 48–256 rows), each step interleaved with cuBLASLt; f21x2 … f21x4 on the 48–256-row ones.
# Everything lands in one archive under $OUT.
set -uo pipefail
. scripts/device-log.sh "s85-f24.txt" 300
J=/tmp/s85f; mkdir -p $J
run $C/tests/fp8 --test-threads=1
stamp tests
for tool in memcheck racecheck synccheck; do
  T=120 run compute-sanitizer --tool $tool --error-exitcode 9 $C/kernel-lab --family fp8 --steps fp8:f24x3 --check --gemm-sizes 40x520x2064,129x264x4096
done
stamp sanitizers
F24=fp8:f24x2,fp8:f24x3,fp8:f24x4,fp8:f24x5,fp8:f24x6,fp8:f24x7,fp8:f24x8
grep -vE "^(32|40)x" scripts/s85-f24-shapes.txt > /tmp/big.txt
for i in $(seq 1 ${ROUNDS:-3}); do
  T=300 run $C/kernel-lab --family fp8 --steps fp8:f22,$F24,fp8:f14 --reps 10 --warmup 2 --shapes-file scripts/s85-f24-shapes.txt --seed 85$i --json $J/f24-$i.json --out /tmp/r
  stamp "process $i"
  T=120 run $C/kernel-lab --family fp8 --steps fp8:f21x2,fp8:f21x3,fp8:f21x4 --reps 10 --warmup 2 --shapes-file /tmp/big.txt --seed 86$i --json $J/f21-$i.json --out /tmp/r
  stamp "f21 process $i"
done
grep -E "^==|^exit|^t\+|test result|FAILED|panicked|ERROR SUMMARY" "$L" | head -60
cp "$L" $J/
(cd $J && tar cJf "$OUT/s85-f24.tar.xz" .)
