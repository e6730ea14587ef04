#!/usr/bin/env bash
# Session 105 (issue 48), call 4: every candidate (--autotune, bf16, one process) on the H100 sample's lowest
# shapes (scripts/gpu-s105-headline.sh's and session 104's seed-9898 runs): is a faster candidate there (the
# choice) or none (a kernel)?
# Carry: scripts/slim-carry.sh
set -uo pipefail
. scripts/device-log.sh s105-low.txt 300
T=200 run $C/kernel-lab --family gemm --dtype bf16 --gemm-sizes 128x3072x4096,256x10240x8192,128x3584x2048,256x3584x4096,128x3072x8192,128x5120x2560,32x28672x8192,1024x22016x4096 --autotune --tune-cache $OUT/tune-low-s105.json
stamp candidates
xz -9 -f "$L"
