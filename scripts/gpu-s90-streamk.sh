#!/usr/bin/env bash
# (Runs on the build of commit 097127f, which had the KERNEL_LAB_STREAM_K switch and the hybrid schedule; both were
# reverted after this call: the hybrid schedule measured slower, see kernels-gpu/src/fp8/README.md, f27.)
# Session 90, issue 48: f14's stream-K schedules at shapes whose last wave is partial — none (`off`), the
# tail alone (`tail`, the shipped rule: tails of at most a third of a wave), the tail with the last whole
# wave (`hybrid`) — chosen by KERNEL_LAB_STREAM_K, 3 processes each alternating, each with cuBLASLt in the
# same process; the GPU tests of the stream-K steps (f14, f16, f20) under each schedule; ncu of cuBLASLt's kernel and f14's at
# 1024×5120×5120; then (SAMPLE=1) chunk 4 of session 83's sample through the FP8 entry point.
set -uo pipefail
. scripts/device-log.sh s90-streamk.txt 200
SHAPES=1024x5120x5120,2048x3072x4096,4096x3584x4096,4096x3584x14336,2048x11008x4096,2048x5120x4096,3072x4096x8192,768x6144x4096,4096x768x3072,1536x4096x2048
for mode in tail hybrid; do
  echo "== gpu test f14 with KERNEL_LAB_STREAM_K=$mode" | tee -a "$L"
  T=200 run env KERNEL_LAB_STREAM_K=$mode $C/tests/fp8 --test-threads 1 streams_the_tail
done
stamp tests
for i in 1 2 3; do
  for mode in off tail hybrid; do
    echo "== set streamk process $i mode $mode" | tee -a "$L"
    T=150 run env KERNEL_LAB_STREAM_K=$mode $C/kernel-lab --family fp8 --steps f14 --reps 10 --warmup 2 --gemm-sizes $SHAPES --seed 90$i --json "$OUT/streamk-$mode-p$i.json"
  done
  stamp "process $i"
done
for mode in tail hybrid; do
  T=120 run env KERNEL_LAB_STREAM_K=$mode ncu --clock-control none --metrics gpu__time_duration.sum,launch__grid_size,launch__cluster_dim_x,launch__block_size,launch__registers_per_thread,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes.sum,lts__t_bytes.sum \
     --launch-count 30 $C/kernel-lab --family fp8 --steps f14 --reps 1 --warmup 0 --gemm-sizes 1024x5120x5120 --seed 909
  cp "$L" /dev/null
done
stamp ncu
grep -E "^==|^exit|^t\+|f14 |cuBLAS|rel|FAIL|panicked|test result" "$L" | head -150
if [ "${SAMPLE:-0}" = 1 ]; then FIRST=4 FAMILY=fp8 DEADLINE=${DEADLINE:-300} OUT=$OUT bash scripts/gpu-s84-sample.sh; fi
