#!/usr/bin/env bash
# Session 66: b4's ablations (timing only: each variant drops one piece of the tile and is wrong): the carry's
# kl-N is b4 built with the step's temporary ABLATE = N (1: no dQ atomics, 2: no copies in the loop, 4: no
# CTA barrier a tile, 7: none of the three, 9: no dQ product and no atomics). REPS rounds, each variant once a
# round (`kernel-lab backward`, b4's row against b3's, unchanged), then ncu's warp stalls of the full b4.
set -uo pipefail
. scripts/device-log.sh "b4-ablate.txt" 200
SHAPES=${SHAPES:-1x16x16x8192x128,2x16x16x4096x64}
for r in $(seq 1 ${REPS:-3}); do
  for v in ${VARIANTS:-0 1 2 4 7 9}; do
    run $C/kl-$v backward --shapes $SHAPES --json "$OUT/v$v-$r.json"
  done
done
T=300 run ncu --clock-control none -k regex:attn_bwd_b4_d128 -c 1 --section WarpStateStats --section SchedulerStats --section SourceCounters --section ComputeWorkloadAnalysis -o "$OUT/ncu-b4" $C/kl-0 backward --shapes 1x16x16x8192x128
T=120 run ncu -i "$OUT/ncu-b4.ncu-rep" --page details --print-details all
T=120 run ncu -i "$OUT/ncu-b4.ncu-rep" --page source --print-source sass --csv
grep -E "^==|^exit|wgmma" "$L" | head -150
