#!/usr/bin/env bash
# Issue 48's device call: the GEMM cost model's calibration, the entry point against cuBLAS on a corpus
# sample, and every candidate timed on a ranking sample (for `kernel-lab rank`). Run on the device with
# carry [".carry"] after scripts/slim-carry.sh; .carry/legacy.xz (optional) is an older build to compare.
#   PARTS="cal legacy rank entry" R=results/<dir> scripts/gpu-gemm-cost.sh
set -uo pipefail
R=${R:?results dir with sample-200-seed48.tsv and rank-shapes.tsv}
PARTS=${PARTS:-cal legacy rank}
RUNS=${RUNS:-1}
DTYPES=${DTYPES:-f16,bf16}
(cd .carry && xz -d -f *.xz && chmod +x kernel-lab legacy 2>/dev/null); B=.carry/kernel-lab; L=.carry/legacy
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,power.limit,driver_version --format=csv > $OUT/gpu.txt
export XDG_CACHE_HOME=$OUT/xdg
shapes() { cut -f1 "$1" | grep -v '^#' | paste -sd, -; }
for p in $PARTS; do
  t0=$(date +%s)
  case $p in
    cal) $B calibrate --out $OUT/cost.tsv --samples $OUT/cal-samples.tsv > $OUT/calibrate.txt 2>&1 ;;
    legacy) $L --family gemm --dtype $DTYPES --gemm-sizes "$(shapes $R/sample-200-seed48.tsv)" > $OUT/legacy-200.txt 2>&1 ;;
    rank) $B --family gemm --dtype f16 --autotune --tune-cache $OUT/tune${RANK_TAG:-}.json --shapes-file $R/${RANK_SHAPES:-rank-shapes.tsv} > $OUT/rank-run${RANK_TAG:-}.txt 2>&1
          $B rank --tune-cache $OUT/tune${RANK_TAG:-}.json --cost ${COST:-$OUT/cost.tsv} > $OUT/rank${RANK_TAG:-}.txt 2>&1 ;;
    f32) timeout ${F32_LIMIT:-240} $B --family gemm --dtype f32 --reps 10 --warmup 2 --shapes-file $R/sample-200-seed48.tsv > $OUT/entry-200-f32.txt 2>&1 ;;
    entry) for i in $(seq 1 $RUNS); do
             ${COST:+env KERNEL_LAB_COST_FILE=$COST} $B --family gemm --dtype $DTYPES --shapes-file $R/sample-200-seed48.tsv > $OUT/entry-200-run$i.txt 2>&1
           done ;;
  esac
  echo "part $p: rc=$? $(( $(date +%s) - t0 )) s" | tee -a $OUT/parts.txt
done
