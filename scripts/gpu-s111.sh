#!/usr/bin/env bash
# Session 111's device calls (issue 48), `CALL=N scripts/gpu-s111.sh` (results/…-session111 names each call's commit).
# Carry (.carry/, stripped and xz'd): kernel-lab; tests/fp8 (bench's FP8 tests).
#   1: bench's FP8 calibration GPU test and `kernel-lab calibrate --dtype fp8` x3 with the L2-aware calibration
#      shapes (K-tile shapes within half the L2, f14's and f22's DRAM shapes at twice it). Predicted on an H100: f22's
#      full-load K tile 0.19-0.21 us (was 0.22-0.23 from shapes beyond the L2), f14's 0.50-0.60 (was 0.76-0.79), DRAM
#      floors found for both (2-3.3 TB/s). Then every per-tensor FP8 step at a fresh corpus sample
#      (scripts/fp8-draw-11101.tsv: `shapes.py gemm --sample 32 --seed 11101`), process 1.
#   2: the same steps, processes 2 and 3.
#   3: the H100's shipped FP8 costs (d6e3f024) against the H200's (the same binary, KERNEL_LAB_FP8_COST_FILE holding them):
#      the FP8 entry at the 12 shapes of draws 11001 and 11103 whose pick they change (scripts/fp8-changed-s111.tsv),
#      3 processes alternating (predicted: new/old time geomean 0.97-1.00, 256x4096x4096 ~0.89); then the entry on
#      a fresh draw (scripts/fp8-draw-11103.tsv: `shapes.py gemm --sample 40 --seed 11103`), 3 processes (predicted:
#      per tensor >= 1.00x cuBLASLt's default mode, none under 0.85x).
#   4: `ncu` of cuBLASLt's FP8 kernels at four few-tile shapes where the entry runs 0.74-0.85x it (sessions 110-111):
#      grid, block, cluster, registers, shared memory and duration, for the next few-tile step's design (no prediction:
#      a reading of its configuration).
#   5: f26 (64 activation rows x 128 weight columns computed transposed, one CTA a tile: cuBLASLt's tile and grid of
#      128 CTAs at call 4's shapes), never timed above 64 rows, against f22 and f27n128 at six 128-256-row few-tile
#      shapes whose tiles of 64x128 make one round (scripts/fp8-f26-s111.tsv), 3 processes. Predicted: 256x4096x4096
#      13-15 us (f27n128 14.9, f22 16.6, cuBLASLt 13.4 on sessions 106-110's H100s).
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
  fp8_calibrations $J
  stamp "calibrated"
  draw 1 ;;
2) draw 2 3 ;;
3)
  rm -rf ~/.cache/kernel-lab
  printf "step\tshape\tus\tpredicted_us\n" > /tmp/empty.tsv
  run $C/kernel-lab calibrate --dtype fp8 --refit /tmp/empty.tsv --out /tmp/h200-costs.tsv
  for i in 1 2 3; do
    for b in old new; do
      E=""; [ $b = old ] && E=KERNEL_LAB_FP8_COST_FILE=/tmp/h200-costs.tsv
      T=120 run env $E $C/kernel-lab --family fp8 --entry --shapes-file scripts/fp8-changed-s111.tsv --reps 10 --warmup 2 \
          --seed 1113$i --json $J/entry-$b-p$i.json --out /tmp/r
    done
    stamp "changed process $i"
  done
  python3 scripts/fp8-entry-old-new.py $J | tee -a "$L"
  for i in 1 2 3; do
    T=150 run $C/kernel-lab --family fp8 --entry --shapes-file scripts/fp8-draw-11103.tsv --reps 6 --warmup 1 --seed 1114$i \
        --json $J/draw11103-p$i.json --out /tmp/r
    stamp "draw 11103 process $i"
  done
  python3 scripts/fp8-entry-medians.py $J/draw11103-p*.json | tee -a "$L" ;;
4)
  for s in 128x8192x3072 256x4096x4096 256x3072x4096 512x3072x8192; do
    T=40 run ncu --clock-control none -k regex:nvjet -c 3 --section LaunchStats --section SpeedOfLight \
        $C/kernel-lab --family fp8 --steps f27n128 --gemm-sizes $s --reps 2 --warmup 0 --out /tmp/r
  done ;;
5)
  for i in 1 2 3; do
    T=25 run $C/kernel-lab --family fp8 --steps f26,f22,f27n128 --shapes-file scripts/fp8-f26-s111.tsv --reps 6 --warmup 1 \
        --seed 1115$i --json $J/f26-p$i.json --out /tmp/r
  done ;;
*) echo "CALL=$CALL: one of 1-5" | tee -a "$L" ;;
esac
tar cJf $OUT/s111-$CALL.tar.xz -C /tmp s111-$CALL
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
