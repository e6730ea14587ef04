#!/usr/bin/env bash
# `ncu --clock-control none` of one launch of each prefill kernel in KERNELS on SHAPE (issue 49): speed of light,
# warp states and scheduler by default, or the sections SEC and metrics MET given. Carry: scripts/prefill-carry.sh.
#   KERNELS="attn_a26_d128_bf16 attn_x33_d128_bf16" SHAPE=1x32x8x4096x128 TAG=ncu bash scripts/gpu-prefill-ncu.sh
#   (instruction mix and stall samples: SEC="--section InstructionStats --print-details all"
#    MET='smsp__inst_executed.sum,sm__cycles_elapsed.avg,regex:smsp__pcsamp_warps_issue_stalled_[a-z_]+$')
set -uo pipefail
: "${KERNELS:?KERNELS=the kernels to profile}" "${SHAPE:?SHAPE=BxHxKxLxD}" "${TAG:?TAG=a short name for the log}"
. scripts/device-log.sh "s-$TAG.txt" 300
SEC=${SEC:-"--section SpeedOfLight --section WarpStateStats --section SchedulerStats"}
MET=${MET:-'sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg'}
for k in $KERNELS; do
  # shellcheck disable=SC2086 # SEC holds several options
  T=200 run ncu --clock-control none -k "regex:$k" -c 1 $SEC --metrics "$MET" $C/kernel-lab prefill --shapes $SHAPE --kernel $k --timing burst
done
grep -vE "^\| |^==PROF|WARNING" "$L" | head -300
