#!/usr/bin/env bash
# Session 59: where w1's time goes at 1x28672x4096 (issue 51's FP8 weights): ncu of one w1 launch and one HGEMM d2
# launch on the same shape (16-bit weights) — instructions, issue activity, stall reasons per issued instruction,
# sectors from L1/L2/DRAM. Carry: scripts/slim-carry.sh (the suite binary).
set -uo pipefail
. scripts/device-log.sh ncu-w1.txt 200
S=smsp__average_warps_issue_stalled
M=smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,gpu__time_duration.sum,smsp__warps_active.avg.per_cycle_active
for r in long_scoreboard lg_throttle mio_throttle short_scoreboard math_pipe_throttle wait not_selected selected barrier dispatch_stall no_instruction drain membar tex_throttle branch_resolving imc_miss; do M=$M,${S}_${r}_per_issue_active.ratio; done
run ncu --clock-control none -k regex:"fp8_w1_t8_bf16" --launch-skip 20 --launch-count 1 --metrics $M $C/kernel-lab w8 --shapes 1x28672x4096
run ncu --clock-control none -k regex:"hgemm_decode_v2" --launch-skip 20 --launch-count 1 --metrics $M $C/kernel-lab w8 --shapes 1x28672x4096
grep -E "^==|^exit|fp8_w1|hgemm_decode|smsp__|sm__|dram__|lts__|l1tex__|gpu__" "$L" | head -80
