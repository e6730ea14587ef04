#!/usr/bin/env bash
# Session 90, issue 48: FP8 step f27 (f12's CTA on 128 x 192 / 320 / 384 tiles). Checks (odd shapes
# against the f64 reference, compute-sanitizer memcheck and racecheck on two), then f14 and the three widths
# at shapes whose 128x256 tiles leave the last round part-empty and at full-wave shapes, 3 processes, each
# step interleaved with cuBLASLt in the same process.
set -uo pipefail
. scripts/device-log.sh s90-f27.txt 200
ODD=1000x5000x4112,129x650x528,3x500x256,2000x700x1040,257x1000x4096
T=200 run $C/kernel-lab --family fp8 --steps f14,f27n192,f27n320,f27n384 --check --gemm-sizes $ODD --seed 9011
for tool in memcheck racecheck; do
  T=200 run compute-sanitizer --tool $tool --print-limit 5 $C/kernel-lab --family fp8 --steps f27n320,f27n384 --check --gemm-sizes 1000x700x528 --seed 9012
done
stamp checks
SHAPES=1024x5120x5120,768x6144x4096,2048x3072x4096,4096x768x3072,1536x4096x2048,2048x5120x4096,4096x3584x4096,1024x11008x4096,512x4608x3072,1024x2560x3072,4096x4096x4096,2048x11008x4096,8192x8192x8192,4096x14336x4096
for i in 1 2 3; do
  echo "== set f27 process $i" | tee -a "$L"
  T=200 run $C/kernel-lab --family fp8 --steps f14,f27n192,f27n320,f27n384 --reps 10 --warmup 2 --gemm-sizes $SHAPES --seed 902$i --json "$OUT/f27-p$i.json"
  stamp "process $i"
done
grep -E "^==|^exit|^t\+|FAIL|rror|ERROR SUMMARY|panicked" "$L" | head -60
