#!/usr/bin/env bash
# Session 90, issue 48: the FP8 entry point before (.carry/old: f27's kernels built, the choice without them)
# and after (.carry: the choice weighing f27's widths) at the 26 shapes of two corpus samples whose
# per-tensor pick changes (scripts/s90-f27-changed.txt: `shapes.py gemm --sample 200`, seeds 8383 and 9090),
# 3 processes each alternating, each pick interleaved with cuBLASLt; then f18 against f27 and f14 where
# the model keeps f18 (3 processes).
set -uo pipefail
. scripts/device-log.sh s90-f27-entry.txt 200
SHAPES=$(cat scripts/s90-f27-changed.txt)
for i in 1 2 3; do
  for b in old new; do
    bin=$C/kernel-lab; [ $b = old ] && bin=$C/old/kernel-lab
    echo "== set entry process $i build $b" | tee -a "$L"
    T=200 run $bin --family fp8 --entry --reps 10 --warmup 2 --gemm-sizes $SHAPES --seed 903$i --json "$OUT/entry-$b-p$i.json"
  done
  stamp "process $i"
done
F18S=768x6144x4096,2048x11008x4096,1536x6144x4096,3072x6144x2048
for i in 1 2 3; do
  T=200 run $C/kernel-lab --family fp8 --steps f14,f18,f27n192,f27n320 --reps 10 --warmup 2 --gemm-sizes $F18S --seed 904$i --json "$OUT/f18-p$i.json"
done
stamp f18
grep -E "^==|^exit|^t\+|^summary|under 0.85" "$L" | head -60
