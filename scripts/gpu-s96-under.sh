#!/usr/bin/env bash
# Session 96, issue 48: every candidate (`--autotune`, bf16, one process) at the 14 shapes of call 5's sample
# under 0.90× cuBLAS — whether the entry's pick or every kernel falls short there.
set -uo pipefail
. scripts/device-log.sh s96-under.txt 300
S=128x4608x3072,256x2048x1024,1024x768x3072,128x2560x3072,64x3584x4096,128x3072x3072,512x768x384,2048x768x768,256x1024x1024,256x4096x4096,256x3584x4096,128x6144x4096,256x768x1536,512x5120x2560
T=400 run $C/kernel-lab --family gemm --dtype bf16 --gemm-sizes $S --autotune --tune-cache $OUT/tune-under.json
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
