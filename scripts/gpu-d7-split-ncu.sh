#!/usr/bin/env bash
# Prepared in session 84 for the next device session (issue 48): why splitting d7's K at all costs ~9–10 µs
# (session 84, call 2: 64×5632×512 7.0 µs unsplit, 16.6 at 2 splits, 17.1 at the rule's 3). `ncu` (clocks not
# controlled) of d7 at 64×5632×512 and 64×2176×512 with KERNEL_LAB_TMA_SPLITS=1 and 2: each launch's duration,
# SM-active cycles, DRAM and L2 traffic and the warp stalls, so the split's cost shows up as time in the kernel
# (its partials' round trip, the fences, the last CTA's sums and 16-bit stores) or outside it (the launch, the
# grid). *Predicted*: inside the kernel, in the last CTA's tail (fence, partial loads, d3's 16-bit stores):
# the SM-active cycles of the busiest SM ~2× the unsplit ones. One process each. Carry: .carry/kernel-lab.
set -uo pipefail
. scripts/device-log.sh "d7-split-ncu.txt" 300
M=gpu__time_duration.sum,launch__grid_size,sm__cycles_active.max,sm__cycles_active.avg,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
for n in 1 2; do
  echo "== set d7 splits $n" | tee -a "$L"
  T=140 run env KERNEL_LAB_TMA_SPLITS=$n ncu --clock-control none --metrics $M -k 'regex:hgemm_decode_v7' --print-summary none -c 8 \
    $C/kernel-lab --family gemm --config d7-bf16 --dtype bf16 --gemm-sizes 64x5632x512,64x2176x512 --reps 3 --warmup 1
  # d19 where the entry splits it (the corpus's split shapes are deep-K ones like these: 12 of 1,365 bf16 picks split,
  # session 84's scan); 256×4096×7168 ran 0.844× cuBLAS in session 83's sample.
  echo "== set d19 splits $n" | tee -a "$L"
  T=140 run env KERNEL_LAB_TMA_SPLITS=$n ncu --clock-control none --metrics $M -k 'regex:hgemm_decode_v19' --print-summary none -c 8 \
    $C/kernel-lab --family gemm --config d19-bf16 --dtype bf16 --gemm-sizes 256x4096x7168,256x4096x14336 --reps 3 --warmup 1
done
grep -E "^==|^exit|duration|cycles_active|grid_size|stalled" "$L" | head -80
xz -9 "$L"
