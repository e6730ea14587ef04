#!/usr/bin/env bash
# Session 76 (issue 48): d26 (d16 in 2-D clusters multicasting both operands) — the GPU test of every HGEMM
# step (d26x8, d26x4 among them), compute-sanitizer on d26, d26 against d9 / d16 / d25 and cuBLAS at the
# corpus's few-column-tile shapes (3 processes, interleaved with cuBLAS), and a calibration of the cost model
# (its d26 rows go into the shipped tables). Carry: scripts/slim-carry.sh gpu.
set -uo pipefail
. scripts/device-log.sh s76-d26.txt 300
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; }
T=240 run $C/tests/gpu every_hgemm_step_matches_the_f64_reference_or_names_its_constraint --test-threads 1
stamp tests
export PATH=/usr/local/cuda/bin:$PATH
T=200 run $C/kernel-lab --family hgemm --steps d26x8,d26x4 --sanitize --gemm-sizes 130x264x1024,4097x129x40,256x1000x192
stamp sanitize
SH=${SH:-128x3072x4096,128x2048x2048,128x1536x2048,256x1536x2048,128x4608x3072,256x3072x4096,512x1024x1024,128x3072x768,512x768x384,256x3072x2048,128x4096x5504,1024x1024x4096,256x3072x768}
for i in 1 2 3; do
  T=150 run $C/kernel-lab --family hgemm --steps d9,d16,d25,d26x8,d26x4 --gemm-sizes $SH --reps 20 --warmup 3 --seed 776$i
  stamp "timing $i"
done
T=200 run $C/kernel-lab calibrate --out $OUT/cost-h200-s76.tsv --samples $OUT/cal-samples-s76.tsv
stamp calibrate
grep -E "^exit [1-9]|panicked|FAILED" "$L" | head || true
