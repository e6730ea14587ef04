#!/usr/bin/env bash
# Issue 52: the TP = 2 step's two changes switched on and off (KERNEL_LAB_FUSED_NORM, KERNEL_LAB_SPLIT_HEAD) at
# batch B (default 32), interleaved, R processes each (default 2), then a profile of each variant. Writes
# $OUT/tp-ab.tar.gz (the device tool returns at most 8 files). Carry: scripts/slim-carry.sh allreduce.
set -uo pipefail
. scripts/nccl-path.sh
. scripts/device-log.sh "tp-ab.txt" 300
M=/tmp/llm-check/llama3-8b; B=${B:-32}; R=${R:-2}; P=${P:-128}
mkdir -p "$OUT/ab"
T=200 run python3 scripts/llm-hf-check.py --make-only --models llama3-8b
variants="both:1:1 unfused:0:1 wholehead:1:0 neither:0:0"
for i in $(seq $R); do
  for v in $variants; do
    IFS=: read name fn sh <<< "$v"
    KERNEL_LAB_FUSED_NORM=$fn KERNEL_LAB_SPLIT_HEAD=$sh run $C/llm --model $M --prompt-len $P --max-new 32 --batch $B --tp 2 --json "$OUT/ab/b$B-$name-$i.json"
  done
done
for v in $variants; do
  IFS=: read name fn sh <<< "$v"
  KERNEL_LAB_FUSED_NORM=$fn KERNEL_LAB_SPLIT_HEAD=$sh run $C/llm --model $M --prompt-len $P --max-new 8 --batch $B --tp 2 --profile --json "$OUT/ab/prof-b$B-$name.json"
done
cp "$L" "$OUT/ab/"; (cd "$OUT" && tar czf tp-ab.tar.gz ab && rm -rf ab)
grep -E "^==|^exit|^\| |decode|error|Error|panicked" "$L" | head -150
