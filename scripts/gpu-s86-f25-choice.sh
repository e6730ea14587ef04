#!/usr/bin/env bash
# Session 86 (issue 48): the per-tensor choice with f25 (`per_tensor_step_for`: F25_COST against FW2_COST or the
# wgmma pick's cost, F25_MARGIN). Every shape of session 83's and a fresh sample (seed 8686) whose pick changes,
# plus controls the model leaves alone, timed with the old pick and f25 in each process against cuBLASLt
# (3 processes, fresh inputs): fw2 / f25 up to 16 rows, f22 / f14 / f25 above.
set -uo pipefail
. scripts/device-log.sh "s86-choice.txt" 200
S16=16x128256x2048,16x128256x8192,16x13824x5120,16x14336x3584,16x14336x4096,16x15360x5120,16x16000x4096,16x32000x4096,16x64128x4096,16x64128x8192,16x8192x14336,16x8192x28672,16x8192x8192,8x256000x3584,8x57344x8192,16x6144x4096,16x5120x5120,8x32000x5120,4x64128x4096,1x28672x8192
S32=32x11008x4096,32x128256x4096,32x15360x5120,32x16000x5120,32x16000x8192,32x16032x3072,32x16384x2048,32x16384x3072,32x28672x3584,32x28672x8192,32x6144x4096,32x6144x768,32x64128x3072,32x8192x1024,32x8192x2048,32x8192x4096,24x28672x4096,24x8192x2048,32x5120x2560,32x3072x4096,32x4096x7168
for i in 1 2 3; do
  T=150 run $C/kernel-lab --family fp8 --steps fp8:fw2,fp8:f25 --reps 10 --warmup 2 --gemm-sizes $S16 --seed 86$i --json $OUT/c16-$i.json --out /tmp/r
  stamp "16 rows, process $i"
  T=150 run $C/kernel-lab --family fp8 --steps fp8:f22,fp8:f14,fp8:f25 --reps 10 --warmup 2 --gemm-sizes $S32 --seed 87$i --json $OUT/c32-$i.json --out /tmp/r
  stamp "32 rows, process $i"
done
grep -E "^==|^exit|^t\+" "$L" | head -40
(cd "$OUT" && tar cJf /tmp/s86-choice.tar.xz . && find . -type f -delete && mv /tmp/s86-choice.tar.xz .)
