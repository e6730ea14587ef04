#!/usr/bin/env bash
# Session 71 (issue 48): GEMMs with few tiles at M 128-1024 (scripts/s71-small-shapes.txt: 14 corpus shapes whose
# 128x128 tiles fill under half of 132 SMs, drawn with seed 71). The entry point's pick against cuBLAS, then every
# candidate timed by the autotuner (f16), one process each (exploration: where the pick and the best candidate stand).
set -uo pipefail
. scripts/device-log.sh "s71-small.txt" 500
F=scripts/s71-small-shapes.txt
run $C/kernel-lab --family gemm --dtype f16 --shapes-file $F --json $OUT/entry.json
T=400 run $C/kernel-lab --family gemm --dtype f16 --shapes-file $F --autotune --tune-cache $OUT/tune.json --json $OUT/tuned.json
grep -E "^==|^exit [1-9]|^\|" "$L" | head -80
