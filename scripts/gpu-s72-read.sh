#!/usr/bin/env bash
# Session 72: the Hopper kernels' last wait `cp.async.bulk.wait_group.read 0` (the TMA stores have read shared
# memory; their writes complete with the grid, as CUTLASS's tma_store_wait) instead of `wait_group 0` (writes
# done). Call 6's ncu put ~30 of f14's 239 warp samples at 128x256x128 (~0.5 µs) on that wait. Checks: the fp8
# GPU tests, `--check` of the fp8 and hgemm families (every step, ragged shapes, fully written). Timing:
# kernel-lab (the .read build) against kernel-lab-old (c13c07c), alternating process by process, ROUNDS each,
# f14/f20 and h6/h10 at one-tile and larger shapes, each step interleaved with cuBLAS(Lt) in its process. (The
# .read build is commit d1a72f2, measured and reverted: 0.99–1.005×.)
set -uo pipefail
. scripts/device-log.sh "s72-read.txt" 300
J=/tmp/s72r; mkdir -p $J
[ "${TESTS:-1}" = 1 ] && { run $C/tests/fp8 --test-threads=1; run $C/kernel-lab --family fp8,hgemm --check; }
for i in $(seq 1 ${ROUNDS:-3}); do
  for b in kernel-lab-old kernel-lab; do
    T=120 run $C/$b --family fp8 --steps fp8:f14,fp8:f20 --gemm-sizes 128x256x128,256x768x1536,4096x4096x4096 --json $J/fp8-$b-$i.json
    T=120 run $C/$b --family hgemm --steps hgemm:h6,hgemm:h10 --gemm-sizes 128x256x64,256x768x1536,4096x4096x4096 --json $J/hgemm-$b-$i.json
  done
done
tar czf "$OUT/json.tgz" -C $J .
