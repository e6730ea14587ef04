#!/usr/bin/env bash
# Session 62: where a25's time goes at 1x16x8x8192x256 without the mask (issue 49, head dim 256): ncu of one a25
# launch — tensor-pipe and shared-memory activity, issue activity, stall reasons per issued instruction — to test
# the README's claim that S's m64n64k16 keeps the shared-memory port as busy as the tensor cores.
# Carry: scripts/prefill-carry.sh.
set -uo pipefail
. scripts/device-log.sh ncu-prefill-d256.txt 300
S=smsp__average_warps_issue_stalled
M=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_gmma.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed
M=$M,l1tex__throughput.avg.pct_of_peak_sustained_active,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum
M=$M,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__cycles_elapsed.avg.per_second
for r in long_scoreboard mio_throttle short_scoreboard math_pipe_throttle wait barrier membar no_instruction dispatch_stall sleeping selected not_selected; do M=$M,${S}_${r}_per_issue_active.ratio; done
for k in a25 a24; do
  run ncu --clock-control none -k regex:"attn_${k}_d256_bf16" --launch-skip 10 --launch-count 1 --metrics $M $C/kernel-lab prefill --shapes 1x16x8x8192x256
done
grep -E "^==|^exit|attn_a2|smsp__|sm__|dram__|lts__|l1tex__|gpu__" "$L" | head -80
