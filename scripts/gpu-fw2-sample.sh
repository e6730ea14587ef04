#!/usr/bin/env bash
# Session 59: fw2 (the per-tensor choice up to 16 rows) and fw1 against cuBLASLt on corpus samples not used for any
# decision: shapes.py gemm --m 9,12,16 --sample 8 --seed 5999 and --m 1,2,4,8 --sample 8 --seed 6001, RUNS processes.
# Carry: scripts/slim-carry.sh.
set -uo pipefail
RUNS=${RUNS:-3}
SHAPES=${SHAPES:-12x10240x8192,12x3072x3072,12x3584x2048,12x4096x2048,12x6144x4096,16x32000x5120,9x15261x1024,16x6144x4096,1x3584x7168,2x8192x28672,8x3072x4096,2x2048x2048,4x3584x2048,2x4096x14336,1x4096x11008,1x768x768}
. scripts/device-log.sh fw2-sample.txt 300
J=/tmp/fw2s-json; mkdir -p $J
export XDG_CACHE_HOME=/tmp/xdg-fw2s
for i in $(seq 1 $RUNS); do
  T=120 run $C/kernel-lab --family fp8 --gemm-sizes $SHAPES --steps fw1,fw2 --seed $((6010 + i)) --json $J/fp8-$i.json --out /tmp/r
done
tar czf "$OUT/json.tar.gz" -C $J .
grep -E "^==|^exit" "$L" | head -20
