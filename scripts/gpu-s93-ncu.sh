#!/usr/bin/env bash
# Session 93, issue 49: where a short prompt's time goes — ncu of one a29 launch (the library's D = 96 kernel) at
# 8x32x32x512x96 (4 key tiles a unit, 0.81-0.85x cuDNN) and 1x32x32x2048x96 (16 tiles a unit, 1.03x), then cuDNN's
# forward kernel at 8x32x32x512x96: speed of light, pipes, warp states, scheduler, launch. Carry: scripts/prefill-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s93-ncu.txt" 300
SEC="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section LaunchStats --section MemoryWorkloadAnalysis"
MET='regex:sm__pipe_tensor.*cycles_active.avg.pct_of_peak_sustained_active$,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg,lts__t_sector_hit_rate.pct'
for sh in 8x32x32x512x96 1x32x32x2048x96; do
  T=200 run ncu --clock-control none -k regex:attn_a29 -c 1 $SEC --metrics "$MET" $C/kernel-lab prefill --shapes $sh --timing burst
done
T=200 run ncu --clock-control none -k regex:'fprop|flash|sdpa|fmha|cudnn' -s 3 -c 1 $SEC --metrics "$MET" python3 scripts/prefill-torch-peer.py --shapes 8x32x32x512x96 --backends cudnn --reps 3
grep -E "^==|^exit|pct_of_peak|hit_rate|cycles_elapsed|Duration|Throughput|Issue Slots|Executed Ipc|Block Size|Grid Size|Registers|No Eligible|Stall|Warp Cycles|Function Name|attn_|  [a-z_]+ +\(" "$L" | head -150
