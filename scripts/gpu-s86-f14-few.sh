#!/usr/bin/env bash
# Session 86 (issue 48): f14 with every tile streamed where its tiles fill less than one round (`Step::stream_few`,
# `steps::fp8::stream_k_schedule`). The fp8 GPU tests (the ragged shapes run f14's all-streamed schedule), memcheck
# and racecheck of f14 at two few-tile shapes, then 3 processes of the old build's f14 (tiles whole) and the new
# build's f14, f21x2, f21x4 and f22 at 19 few-tile shapes of 64–1024 rows (session 84's sample's lows among them).
set -uo pipefail
. scripts/device-log.sh "s86-f14-few.txt" 200
T=300 run $C/tests/fp8 --test-threads 1
for tool in memcheck racecheck; do
  T=90 run compute-sanitizer --tool $tool --error-exitcode 9 $C/kernel-lab --family fp8 --steps fp8:f14 --check --gemm-sizes 130x264x400,256x1024x2064
done
stamp checks
S=256x10240x8192,256x4096x7168,256x4608x3072,128x16384x2048,256x4096x14336,128x16384x3072,128x14336x4096,128x8192x14336,128x8192x8192,128x16000x5120,512x4608x3072,1024x2560x3072,256x11008x4096,256x13824x5120,512x3072x1024,128x3584x7168,64x32000x4096,256x2048x2048,512x6144x768
for i in 1 2 3; do
  T=100 run $C/old/kernel-lab --family fp8 --steps fp8:f14 --reps 10 --warmup 2 --gemm-sizes $S --seed 90$i --json $OUT/old-$i.json --out /tmp/r
  T=120 run $C/kernel-lab --family fp8 --steps fp8:f14,fp8:f21x2,fp8:f21x4,fp8:f22 --reps 10 --warmup 2 --gemm-sizes $S --seed 91$i --json $OUT/new-$i.json --out /tmp/r
  stamp "process $i"
done
grep -E "^==|^exit|^t\+|ERROR SUMMARY|RACECHECK SUMMARY|test result|panicked|FAILED" "$L" | head -60
(cd "$OUT" && tar cJf /tmp/s86-f14-few.tar.xz . && find . -type f -delete && mv /tmp/s86-f14-few.tar.xz .)
