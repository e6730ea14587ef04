#!/usr/bin/env bash
# SGEMM split-rule sweep (issue 15's f32 half), over the carried .carry/: each step in SPLIT_STEPS at
# SPLIT_SIZES under each `(blocks per SM, shallowest split)` in RULES (`default` = the step's own rule),
# through KERNEL_LAB_SGEMM_FIXED_SPLIT (runtime::tuning::sgemm_fixed_split). Each run times the step
# interleaved with cublasSgemm, so its "% cuBLAS" compares across rules; `--list`-style split counts
# are printed by the suite's table.
set -uo pipefail
OUT=${OUT:-/tmp/kernel-lab-out}; mkdir -p "$OUT"
C=.carry
RULES=${RULES:-default 1,256 2,256 4,256}
SPLIT_STEPS=${SPLIT_STEPS:-sgemm:v16}
SPLIT_SIZES=${SPLIT_SIZES:-64x4096x4096,128x4096x4096,127x8191x1024}
{ echo "commit $(cat $C/COMMIT | tr '\n' ' ')"; date -u; } | tee "$OUT/split.txt"
for rule in $RULES; do
  echo "== rule $rule ==" | tee -a "$OUT/split.txt"
  if [ "$rule" = default ]; then unset KERNEL_LAB_SGEMM_FIXED_SPLIT; else export KERNEL_LAB_SGEMM_FIXED_SPLIT=$rule; fi
  timeout 200 $C/kernel-lab --family sgemm --steps "$SPLIT_STEPS" --gemm-sizes "$SPLIT_SIZES" >> "$OUT/split.txt" 2>&1
  echo "exit $?" | tee -a "$OUT/split.txt"
done
unset KERNEL_LAB_SGEMM_FIXED_SPLIT
grep -vE "^\s*$" "$OUT/split.txt" | tail -80
