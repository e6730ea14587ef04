#!/usr/bin/env bash
# Session 85 (issue 48): why FP8 at 32 rows streams its weights at 2.9–3.3 TB/s where cuBLASLt reaches 4.0–4.3 (call 1:
# 32×16000…64128 × 3072…8192, 130–235 MB of weights, each beyond the L2). Correctness of two f22 experiments (f22g4: K
# tiles issued in groups of 4; f22p16: the weight box 16 K tiles ahead prefetched into the L2) on ragged shapes; `ncu`
# (clocks not controlled) of f22, f22g4, f22p16, f14 and cuBLASLt's per-tensor kernels at 32×28672×8192 and (f22, f14,
# cuBLASLt) 32×11008×4096: duration, grid, block, cluster, shared memory, registers, DRAM bytes and throughput, L2 hit
# rate, SM activity; 3 processes of f22, f22g4, f22p16 against cuBLASLt on 8 shapes. Then (STANDING=1) the fifth chunk
# of session 83's corpus sample through `--family fp8 --entry`, 3 processes (FIRST=4 of gpu-s84-sample.sh).
set -uo pipefail
. scripts/device-log.sh "s85-stream.txt" 300
run $C/kernel-lab --family fp8 --steps fp8:f22g4,fp8:f22p16 --check --gemm-sizes 1x8x16,130x264x400,300x136x1024,129x520x2048,260x200x2064,40x520x2064
M=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__cluster_dim_x,launch__shared_mem_per_block_dynamic,launch__registers_per_thread,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,sm__cycles_active.avg,sm__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed
T=200 run ncu --clock-control none --metrics $M -k 'regex:fp8_gemm_v(14|22)|sm90|cutlass|nvjet|xmma' --print-summary none \
  $C/kernel-lab --family fp8 --steps fp8:f14,fp8:f22,fp8:f22g4,fp8:f22p16 --gemm-sizes 32x28672x8192 --reps 3 --warmup 1
T=200 run ncu --clock-control none --metrics $M -k 'regex:fp8_gemm_v(14|22)|sm90|cutlass|nvjet|xmma' --print-summary none \
  $C/kernel-lab --family fp8 --steps fp8:f14,fp8:f22 --gemm-sizes 32x11008x4096 --reps 3 --warmup 1
stamp ncu
S=32x28672x8192,32x16000x8192,32x64128x3072,32x11008x4096,32x4096x7168,64x5120x8192,128x8192x8192,256x4096x14336
for i in 1 2 3; do
  T=150 run $C/kernel-lab --family fp8 --steps fp8:f22,fp8:f22g4,fp8:f22p16 --reps 10 --warmup 2 --gemm-sizes $S --seed 87$i --json $OUT/ab-$i.json --out /tmp/r
  stamp "ab process $i"
done
grep -E "^==|^exit|^t\+|fp8_gemm_v|nvjet|sm90|xmma|cutlass|duration|grid_size|block_size|cluster_dim|shared_mem|registers|dram__|lts__|sm__" "$L" | grep -v "^  *[a-z_]*[a-z].*(.*)\s*$" | head -120
if [ "${STANDING:-1}" = 1 ]; then
  OUT=$OUT/standing FIRST=4 FAMILY=fp8 DEADLINE=300 bash scripts/gpu-s84-sample.sh | tail -5
fi
