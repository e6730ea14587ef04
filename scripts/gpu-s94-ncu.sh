#!/usr/bin/env bash
# Session 94, issue 49: a26 against the wide body at D = 128 (x32: a32 without the cross-unit start; a32; x33: a32 with a9's exponentials) at 1x32x8x4096x128 — ncu of one launch each (speed of light, warp
# states, scheduler). Carry: scripts/prefill-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s94-ncu.txt" 300
SEC="--section SpeedOfLight --section WarpStateStats --section SchedulerStats"
MET='sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg'
for k in a26 x32 a32 x33; do
  T=200 run ncu --clock-control none -k regex:attn_$k -c 1 $SEC --metrics "$MET" $C/kernel-lab prefill --shapes 1x32x8x4096x128 --kernel attn_${k}_d128_bf16 --timing burst
done
grep -E "^==|^exit|pct_of_peak|cycles_elapsed|Duration|Issue Slots|No Eligible|Warp Cycles|Stall|attn_a" "$L" | head -80
