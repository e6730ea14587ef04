#!/usr/bin/env bash
# Session 59: do the weight-only steps gain when each warp streams one contiguous run of K (w1c, w4c: a row's bytes
# in flight adjacent) instead of every 8th 64-byte step? The GPU test (every stream against the f64 product), then
# `kernel-lab w8` with the plan's stream w1c and w4c (each against w1, interleaved), RUNS processes each, alternating.
# Carry: scripts/slim-carry.sh fp8_weights.
set -uo pipefail
RUNS=${RUNS:-3}
S=${S:-1x6144x4096,1x4096x4096,1x28672x4096,1x4096x14336,8x28672x4096,32x4096x14336}
. scripts/device-log.sh w1c.txt 300
J=/tmp/w1c-json; mkdir -p $J
T=200 run $C/tests/fp8_weights weight_only_decode
for i in $(seq 1 $RUNS); do
  for s in w1c w4c; do T=90 run env KERNEL_LAB_WEIGHT_STREAM=$s $C/kernel-lab w8 --shapes $S --json $J/w8-$s-$i.json; done
done
tar czf "$OUT/json.tar.gz" -C $J .
grep -E "^==|^exit|test result|FAILED|panicked|^\| " "$L" | head -80
