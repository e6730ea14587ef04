#!/usr/bin/env bash
# Session 85 (issue 48): FP8 f25 (cuBLASLt's 32-row tile: 128 weight rows × 32 activation rows transposed, ten 20 KiB
# stages, one CTA per tile). Correctness on ragged shapes (--check, f64 reference), compute-sanitizer memcheck and
# racecheck at two ragged shapes, then 3 processes of f22 and f25 against cuBLASLt on 12 shapes of 17–64 rows, and of
# fw2 and f25 on 5 shapes of 8–16 rows where fw2 is under 0.85× (K ≥ N/2; session 84's sample). Written in session 85,
# whose device time ran out before it could run: the next device session runs it first.
set -uo pipefail
. scripts/device-log.sh "s85-f25.txt" 200
run $C/kernel-lab --family fp8 --steps fp8:f25 --check --gemm-sizes 1x8x16,130x264x400,300x136x1024,129x520x2048,260x200x2064,40x520x2064,33x1000x4000
for tool in memcheck racecheck; do
  T=90 run compute-sanitizer --tool $tool --error-exitcode 9 $C/kernel-lab --family fp8 --steps fp8:f25 --check --gemm-sizes 40x520x2064,129x264x4096
done
stamp checks
S=32x28672x8192,32x16000x8192,32x64128x3072,32x11008x4096,32x4096x7168,32x3584x7168,32x5120x2560,32x3072x4096,24x14336x4096,48x4096x4096,64x5120x8192,17x4096x4096
for i in 1 2 3; do
  T=100 run $C/kernel-lab --family fp8 --steps fp8:f22,fp8:f25 --reps 10 --warmup 2 --gemm-sizes $S --seed 88$i --json $OUT/f25-$i.json --out /tmp/r
  stamp "process $i"
done
S=8x5120x8192,16x5120x5120,16x3072x3072,16x14336x3584,16x6144x4096
for i in 1 2 3; do
  T=100 run $C/kernel-lab --family fp8 --steps fp8:fw2,fp8:f25 --reps 10 --warmup 2 --gemm-sizes $S --seed 89$i --json $OUT/fw2-$i.json --out /tmp/r
  stamp "fw2 process $i"
done
# `ncu` of f25 and f22 at 32×28672×8192: DRAM % of peak, against the 84% of cuBLASLt's kernel in call 2. Only the
# two step kernels and at most 4 launches (`-c`): session 85's unbounded `ncu` of the whole run ran past its limit.
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,launch__grid_size
T=150 run ncu --clock-control none --metrics $M -k 'regex:fp8_gemm_v2[25]$' -c 4 --print-summary none \
  $C/kernel-lab --family fp8 --steps fp8:f22,fp8:f25 --gemm-sizes 32x28672x8192 --reps 2 --warmup 0
grep -E "^==|^exit|^t\+|ERROR SUMMARY|RACECHECK SUMMARY|f25 |fp8_gemm_v2|dram__|duration" "$L" | head -80
