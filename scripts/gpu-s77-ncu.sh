#!/usr/bin/env bash
# Session 77, issue 49: where a26's time goes at D = 64 (0.93-0.95x cuDNN) against D = 128: ncu of one a26
# launch each (speed of light, pipe utilization incl. the XU that runs MUFU.EX2, warp states, instruction
# mix, scheduler), then cuDNN's D = 64 forward kernel (launch configuration, the same sections).
set -uo pipefail
. scripts/device-log.sh "s77-ncu.txt" 300
SEC="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section InstructionStats --section SchedulerStats --section LaunchStats --section Occupancy"
for sh in 2x32x8x4096x64 1x32x8x4096x128; do
  T=200 run ncu --clock-control none -k regex:attn_a26 -c 1 $SEC -o "$OUT/ncu-a26-$sh" $C/kernel-lab prefill --shapes $sh --timing burst
  T=100 run ncu -i "$OUT/ncu-a26-$sh.ncu-rep" --page details --print-details all
  rm -f "$OUT/ncu-a26-$sh.ncu-rep"
  T=200 run ncu --clock-control none -k regex:attn_a26 -c 1 --metrics 'regex:sm__inst_executed_pipe_.*avg.pct_of_peak_sustained_active$,regex:sm__pipe_.*cycles_active.avg.pct_of_peak_sustained_active$,smsp__issue_active.avg.pct_of_peak_sustained_active' $C/kernel-lab prefill --shapes $sh --timing burst
done
T=200 run ncu --clock-control none -k regex:'fprop|flash|sdpa|fmha' -s 3 -c 1 $SEC -o "$OUT/ncu-cudnn-d64" python3 scripts/prefill-torch-peer.py --shapes 2x32x8x4096x64 --backends cudnn --reps 3
T=100 run ncu -i "$OUT/ncu-cudnn-d64.ncu-rep" --page details --print-details all
T=200 run ncu --clock-control none -k regex:'fprop|flash|sdpa|fmha' -s 3 -c 1 --metrics 'regex:sm__inst_executed_pipe_.*avg.pct_of_peak_sustained_active$,regex:sm__pipe_.*cycles_active.avg.pct_of_peak_sustained_active$,smsp__issue_active.avg.pct_of_peak_sustained_active' python3 scripts/prefill-torch-peer.py --shapes 2x32x8x4096x64 --backends cudnn --reps 3
rm -f "$OUT/ncu-cudnn-d64.ncu-rep"
grep -E "^==|^exit|pct_of_peak|Duration|Throughput|Pipe|Issue Slots|Executed Ipc|Block Size|Registers|Shared Memory Config|No Eligible|Stall|ncu-cudnn|  [a-z_]+ +\(|Function Name|attn_|cudnn" "$L" | head -200
