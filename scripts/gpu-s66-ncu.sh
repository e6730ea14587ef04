#!/usr/bin/env bash
# Session 66: b4 (the carry's kernel-lab) against kernel-lab-a (an earlier build) in REPS alternating processes
# on SHAPES, then ncu of b4 at 1×16×16×8192×128: speed of light, memory, warp stalls and the source counters.
set -uo pipefail
. scripts/device-log.sh "s66-ncu.txt" 300
for i in $(seq 1 ${REPS:-2}); do
  run $C/kernel-lab-a backward ${SHAPES:+--shapes $SHAPES} --json "$OUT/a-$i.json"
  run $C/kernel-lab backward ${SHAPES:+--shapes $SHAPES} --json "$OUT/b-$i.json"
done
T=300 run ncu --clock-control none -k regex:attn_bwd_b4_d128 -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SourceCounters -o "$OUT/ncu-b4" $C/kernel-lab backward --shapes 1x16x16x8192x128
T=120 run ncu -i "$OUT/ncu-b4.ncu-rep" --page details --print-details all
T=120 run ncu -i "$OUT/ncu-b4.ncu-rep" --page source --print-source sass --csv
rm -f "$OUT/ncu-b4.ncu-rep"
grep -E "^==|^exit|wgmma atomic" "$L" | head -80
