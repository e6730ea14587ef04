#!/usr/bin/env bash
# Session 94, issue 49, call 5: where x33 (a31's body at D = 128 with a9's exponentials, removed after the session:
# carry built at 8028302) issues ~6% more instructions than a26 at 1x32x8x4096x128 — ncu's instruction mix and
# the warp-stall samples of one launch each. Carry: scripts/prefill-carry.sh at 8028302.
set -uo pipefail
. scripts/device-log.sh "s94-ncu2.txt" 300
MET='smsp__inst_executed.sum,sm__cycles_elapsed.avg,regex:smsp__pcsamp_warps_issue_stalled_[a-z_]+$'
for k in a26 x33; do
  T=200 run ncu --clock-control none -k regex:attn_$k -c 1 --section InstructionStats --print-details all --metrics "$MET" $C/kernel-lab prefill --shapes 1x32x8x4096x128 --kernel attn_${k}_d128_bf16 --timing burst
done
grep -vE "^\| |^==PROF|WARNING" "$L" | head -300
