#!/usr/bin/env bash
# Session 105 (issue 48), call 2: every candidate (--autotune, bf16, one process) on a held-out corpus draw
# (`shapes.py gemm --m 1,8,16,32,64,96,128,192,256,384,512,768,1024,2048 --tp 1,2,4,8 --sample 40
# --seed 10501`, scripts/s105-heldout-seed10501.tsv) for `kernel-lab rank --tune-cache` with the shipped
# H100 model and call 1's H100 calibration; then the entry against cuBLAS on lines 1-100 of session 98's
# seed-9898 sample (3 processes), so that the whole 200-shape sample has run on one card (lines 101-200 on
# an H100 in session 104).
# Carry: scripts/slim-carry.sh
set -uo pipefail
. scripts/device-log.sh s105-rank.txt 300
T=300 run $C/kernel-lab --family gemm --dtype bf16 --shapes-file scripts/s105-heldout-seed10501.tsv --autotune --tune-cache $OUT/tune-heldout-s105.json
stamp candidates
xz -9 -f "$L"
SAMPLE=results/2026-12-04-h200-session98/sample-200-seed9898.tsv.xz SEED=9898 FROM=1 TO=100 bash scripts/gpu-sample.sh
