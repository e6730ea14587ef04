#!/usr/bin/env bash
# Session 59 (issue 48): FP8 per tensor at 9–16 rows, fw2 (w1's body on e4m3 activations, now widened in `compute`)
# against fw1 (A widened by its own launch, then w1) and cuBLASLt, RUNS processes, on shapes the rule's change was
# decided on (12x4096x4096, 16x4096x14336, 16x28672x4096) and on five it was not; the GPU tests of both routes first.
# Carry: scripts/slim-carry.sh fp8.
set -uo pipefail
RUNS=${RUNS:-3}
SHAPES=${SHAPES:-12x4096x4096,16x4096x14336,16x28672x4096,9x3072x3072,10x5120x5120,13x11008x4096,14x8192x8192,16x1024x4096}
. scripts/device-log.sh fw2.txt 300
J=/tmp/fw2-json; mkdir -p $J
export XDG_CACHE_HOME=/tmp/xdg-fw2
T=150 run $C/tests/fp8 the_weight_only_routes gemm_fp8_runs autotune_picks
for i in $(seq 1 $RUNS); do
  T=100 run $C/kernel-lab --family fp8 --gemm-sizes $SHAPES --steps fw1,fw2 --seed $((5990 + i)) --json $J/fp8-$i.json --out /tmp/r
done
tar czf "$OUT/json.tar.gz" -C $J .
grep -E "^==|^exit|test result|FAILED|panicked" "$L" | head -40
