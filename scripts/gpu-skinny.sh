#!/usr/bin/env bash
# SGEMM v33 and v34 (issue 48's f32 tail: v13 with N off 4 on the interior loop, K split by waves; v34:
# v33 in row groups of 4, two blocks per SM) on a GPU in one call: the f32 entry-point GPU test (v33's odd-N, split and edge shapes against the f64 reference),
# `--check` of v13, v33, v34 at odd sizes, compute-sanitizer memcheck and racecheck on v33 and v34, then v13, v33, v34
# against cublasSgemm at the shapes that motivated them and at decode shapes, 3 processes.
# Carry: scripts/slim-carry.sh gpu.
set -uo pipefail
. scripts/device-log.sh v33.txt 300
J=/tmp/v33-json; mkdir -p $J
T=300 run $C/tests/gpu --test-threads=1 the_f32_entry_point_takes_any_shape
SAN=1x300x200,4x1001x768,3x1001x2048,9x50257x130,16x33x4099,2x5120x5120,1x1x1
T=200 run $C/kernel-lab --check --family sgemm --steps sgemm:v13,v33,v34 --gemm-sizes $SAN
if command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck; do
    T=200 run compute-sanitizer --tool $tool $C/kernel-lab --check --family sgemm --steps sgemm:v33,v34 --gemm-sizes 4x1001x768,3x1001x2048,9x50257x130,2x5120x5120
  done
fi
S=4x50257x768,3x50257x768,8x50257x768,1x32001x4096,1x5120x13824,1x6144x4096,2x5120x5120,4x4608x3584,1x4096x4096,1x14336x4096,1x4096x14336,1x28672x4096,4x4096x4096,16x4096x4096
for i in 1 2 3; do
  T=200 run $C/kernel-lab --family sgemm --steps sgemm:v13,v33,v34 --gemm-sizes $S --json $J/v33-$i.json
done
tar czf "$OUT/json.tar.gz" -C $J .
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^(cuBLAS|v13|v33|v34) |measured|tuned|autotune" "$L" | head -200 || true
