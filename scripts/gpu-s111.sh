#!/usr/bin/env bash
# Session 111's device calls (issue 48), `CALL=N scripts/gpu-s111.sh` (results/…-session111 names each call's commit).
# Carry (.carry/, stripped and xz'd): kernel-lab; tests/fp8 (bench's FP8 tests).
#   1: bench's FP8 calibration GPU test and `kernel-lab calibrate --dtype fp8` x3 with the L2-aware calibration
#      shapes (K-tile shapes within half the L2, f14's and f22's DRAM shapes at twice it). Predicted on an H100: f22's
#      full-load K tile 0.19-0.21 us (was 0.22-0.23 from shapes beyond the L2), f14's 0.50-0.60 (was 0.76-0.79), DRAM
#      floors found for both (2-3.3 TB/s). Then every per-tensor FP8 step at a fresh corpus sample
#      (scripts/fp8-draw-11101.tsv: `shapes.py gemm --sample 32 --seed 11101`), process 1.
#   2: the same steps, processes 2 and 3.
set -uo pipefail
CALL=${CALL:-1}
. scripts/device-log.sh s111-$CALL.txt 200
J=/tmp/s111-$CALL; mkdir -p $J
ALL=f14,f18,f21x2,f21x3,f21x4,f21x5,f21x6,f21x7,f21x8,f22,f25,f27n128,f27n192,f27n320,f27n384,fw2
draw() {
  for i in "$@"; do
    T=280 run $C/kernel-lab --family fp8 --steps $ALL --shapes-file scripts/fp8-draw-11101.tsv --reps 6 --warmup 1 \
        --seed 1110$i --json $J/draw-p$i.json --out /tmp/r
    stamp "draw process $i"
  done
}
case $CALL in
1)
  G=$(nvidia-smi --query-gpu=name --format=csv,noheader | grep -o "H[0-9]*" | head -1 | tr A-Z a-z)
  rm -rf ~/.cache/kernel-lab
  T=300 run $C/tests/fp8 the_fp8_calibration --nocapture --test-threads 1
  for i in 1 2 3; do
    T=150 run $C/kernel-lab calibrate --dtype fp8 --out $J/fp8-cost-$G-p$i.tsv --samples $J/fp8-samples-$G-p$i.tsv
  done
  rm -rf ~/.cache/kernel-lab
  stamp "calibrated"
  draw 1 ;;
2) draw 2 3 ;;
*) echo "CALL=$CALL: one of 1-2" | tee -a "$L" ;;
esac
tar cJf $OUT/s111-$CALL.tar.xz -C /tmp s111-$CALL
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
