#!/usr/bin/env bash
# Session 77, issue 49 (for the next rung): ncu of cuDNN's SDPA forward and of a26 at D = 128 without the mask,
# where a26 is 0.99-1.02x cuDNN at L >= 4096 (target 1.05x) and 0.90x at 1x32x8x2048: the kernels' launch
# configuration, speed of light, pipes and warp states. Carry: scripts/prefill-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s77-ncu128.txt" 200
SEC="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy"
for sh in 1x32x8x4096x128 1x32x8x2048x128; do
  T=150 run ncu --clock-control none -k regex:'fprop|sdpa' -s 3 -c 1 $SEC python3 scripts/prefill-torch-peer.py --shapes $sh --backends cudnn --reps 3
  T=150 run ncu --clock-control none -k regex:attn_a26 -c 1 $SEC $C/kernel-lab prefill --shapes $sh --timing burst
done
grep -E "^==|^exit|Duration|Pipe Xu|Pipe Tensor Cycles Active  |Issue Slots Busy|Block Size|Grid Size|Registers Per|Stall (Wait|Barrier|Long|MIO|GMMA|Dispatch)|attn_a26|cudnn_" "$L" | head -80
