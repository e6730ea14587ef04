#!/usr/bin/env bash
# Session 110's third device call (issue 48; either card: files tagged by the GPU): f27n128's few-tile cost calibrated (Fp8Costs::f27n128). Carry:
# kernel-lab and tests/fp8 (bench's FP8 GPU tests) from .carry/COMMIT.
#   (1) the FP8 calibration GPU test (every costed step's calibration shapes timed, f27n128's among them, and fitted);
#   (2) `kernel-lab calibrate --dtype fp8`, 3 processes, each its costs and timings;
#   (3) every per-tensor few-tile step at 16 few-tile corpus shapes no fit or ranking has seen
#       (scripts/fp8-fewtile-hold-11030.tsv: `shapes.py gemm --sample 400 --seed 11030`, 48-1024 rows, fewer
#       128x256 tiles than SMs, none of sessions 106-110's timed shapes; 16 drawn with seed 11030), 3 processes.
#   Predicted: f27n128's fitted fixed cost 4.5-5.5 us (f14's 6.1-6.4: half its C tile) and K tile 0.25-0.32 us;
#   ranked on (3) and on sessions 106/108/110's H100 tables, the H100's calibration with f27n128's own cost
#   within 5% of the fastest at >= 90% per tensor (the shipped H200 costs: 84% on 43 shapes).
set -uo pipefail
. scripts/device-log.sh s110-3.txt 200
J=/tmp/s110-3; mkdir -p $J
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | grep -o "H[0-9]*" | head -1 | tr A-Z a-z)
rm -rf ~/.cache/kernel-lab
T=300 run $C/tests/fp8 the_fp8_calibration --nocapture --test-threads 1
stamp "fp8 calibration test"
for i in 1 2 3; do
  T=150 run $C/kernel-lab calibrate --dtype fp8 --out $J/fp8-cost-$G-p$i.tsv --samples $J/fp8-samples-$G-p$i.tsv
  stamp "calibrate $i"
done
rm -rf ~/.cache/kernel-lab
tar cJf $OUT/s110-3.tar.xz -C /tmp s110-3
for i in 1 2 3; do
  T=200 run $C/kernel-lab --family fp8 --steps f14,f21x2,f21x3,f21x4,f21x6,f22,f25,f27n128,f27n192 --shapes-file scripts/fp8-fewtile-hold-11030.tsv \
      --reps 10 --warmup 2 --seed 1103$i --json $J/hold-p$i.json --out /tmp/r
  stamp "hold-out process $i"
  tar cJf $OUT/s110-3.tar.xz -C /tmp s110-3
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
