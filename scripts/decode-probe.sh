#!/usr/bin/env bash
# Where a decode GEMM's time goes (issue 15, 4096² at ~78% of a copy of the weights): each step in
# CONFIGS forced through the `gemm` family at PROBE_SIZES (timed against cuBLAS and a copy of the same
# weights, weights rotated beyond L2), so time against K separates a fixed cost from the streaming
# rate; then one `ncu` launch of each kernel at its NCU_RUNS size with the per-SM active cycles (min / avg /
# max: launch and tail against imbalance) and the DRAM bytes. Over the carried .carry/
# (scripts/slim-carry.sh). Writes into $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/kernel-lab-out}; mkdir -p "$OUT"
C=.carry
CONFIGS=${CONFIGS:-d4 d5 d2 d7}
PROBE_SIZES=${PROBE_SIZES:-1x4096x1024,1x4096x2048,1x4096x4096,1x4096x8192,1x4096x16384,16x4096x4096,64x4096x4096,1000x1000x1000}
# cfg:size:kernel-regex (cuBLAS's kernels: nvjet, gemv, cutlass, xmma names)
NCU_RUNS=${NCU_RUNS:-d4:1x4096x4096:hgemm_decode d5:1x4096x4096:hgemm_decode d2:1x4096x4096:hgemm_decode d4:1x4096x4096:nvjet|gemv|cutlass|xmma|splitK d7:1000x1000x1000:hgemm_decode d7:1000x1000x1000:nvjet|gemv|cutlass|xmma|splitK}
{ echo "commit $(cat $C/COMMIT | tr '\n' ' ')"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } 2>&1 | tee "$OUT/probe.txt"
for cfg in $CONFIGS; do
  timeout 200 $C/kernel-lab --family gemm --dtype f16 --config "$cfg" --gemm-sizes "$PROBE_SIZES" --out "$OUT/report" > "$OUT/probe-$cfg.txt" 2>&1
  echo "kernel-lab --family gemm --config $cfg: exit $?" | tee -a "$OUT/probe.txt"
  grep -E "^(cuBLAS|$cfg) |of copy" "$OUT/probe-$cfg.txt" | tee -a "$OUT/probe.txt"; rm -rf "$OUT/report"
done
if command -v ncu >/dev/null; then
  for run in $NCU_RUNS; do
    IFS=: read -r cfg size kre <<< "$run"
    timeout 120 ncu --clock-control none --kernel-name regex:"$kre" --launch-skip ${NCU_SKIP:-10} --launch-count ${NCU_LAUNCHES:-2} \
      --metrics gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,launch__grid_size,launch__cluster_dim_x,launch__block_size,smsp__cycles_active.avg \
      $C/kernel-lab --family gemm --dtype f16 --config "$cfg" --gemm-sizes "$size" --reps 20 --warmup 2 > "$OUT/ncu-$cfg-$size-${kre%%|*}.txt" 2>&1
    echo "ncu $cfg at $size ($kre): exit $?" | tee -a "$OUT/probe.txt"
    grep -vE "^==PROF==|^==WARNING==|Warning: Data" "$OUT/ncu-$cfg-$size-${kre%%|*}.txt" | grep -E "\(.*\)x\(|duration|cycles|dram|lts|grid_size|cluster|block_size" | tee -a "$OUT/probe.txt"
  done
fi
