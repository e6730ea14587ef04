#!/usr/bin/env bash
# Session 93, issue 49: why a31 runs 1.06x a28 at 2x16x8x4096x256 — ncu of one launch of each (speed of light, warp
# states, scheduler) on the same shape. Carry: scripts/prefill-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s93-ncu31.txt" 300
SEC="--section SpeedOfLight --section WarpStateStats --section SchedulerStats"
MET='sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg'
for k in a28 a31; do
  T=200 run ncu --clock-control none -k regex:attn_$k -c 1 $SEC --metrics "$MET" $C/kernel-lab prefill --shapes 2x16x8x4096x256 --kernel attn_${k}_d256_bf16 --timing burst
done
grep -E "^==|^exit|pct_of_peak|cycles_elapsed|Duration|Issue Slots|No Eligible|Warp Cycles|Stall|attn_a" "$L" | head -80
