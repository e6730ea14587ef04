#!/usr/bin/env bash
# Session 86 (issue 48): FP8 f26 (f25's CTA on 64 activation rows). The fp8 GPU tests (every step on ragged
# shapes, the entry point at a shape that picks f25), f26's --check on ragged shapes, memcheck and racecheck,
# then 3 processes of f14, f22, f25 and f26 against cuBLASLt at 33–64 rows.
set -uo pipefail
. scripts/device-log.sh "s86-f26.txt" 200
T=300 run $C/tests/fp8 --test-threads 1
run $C/kernel-lab --family fp8 --steps fp8:f26 --check --gemm-sizes 1x8x16,130x264x400,300x136x1024,129x520x2048,260x200x2064,40x520x2064,65x1000x4000
for tool in memcheck racecheck; do
  T=90 run compute-sanitizer --tool $tool --error-exitcode 9 $C/kernel-lab --family fp8 --steps fp8:f26 --check --gemm-sizes 40x520x2064,129x264x4096
done
stamp checks
S=64x32000x4096,64x64128x3072,64x128256x3072,64x22016x4096,64x8192x14336,64x4096x11008,64x3072x8192,64x14336x3584,64x5120x8192,48x4096x4096,48x14336x4096,40x28672x8192,33x16000x8192,56x11008x4096
for i in 1 2 3; do
  T=120 run $C/kernel-lab --family fp8 --steps fp8:f14,fp8:f22,fp8:f25,fp8:f26 --reps 10 --warmup 2 --gemm-sizes $S --seed 89$i --json $OUT/f26-$i.json --out /tmp/r
  stamp "process $i"
done
grep -E "^==|^exit|^t\+|ERROR SUMMARY|RACECHECK SUMMARY|test result|panicked|FAILED" "$L" | head -60
(cd "$OUT" && tar cJf /tmp/s86-f26.tar.xz . && find . -type f -delete && mv /tmp/s86-f26.tar.xz .)
