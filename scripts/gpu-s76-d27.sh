#!/usr/bin/env bash
# Session 76 (issue 48): d27 (d16's CTA on 32-row activation tiles). The GPU test of every HGEMM step (d27
# among them), memcheck and racecheck of d27, d27 against d9 / d16 / d25 and cuBLAS at few-tile shapes of
# M = 32–512 (3 processes, each step interleaved with cuBLAS), and a calibration (d27's row for the shipped
# tables). Carry: scripts/slim-carry.sh gpu.
set -uo pipefail
. scripts/device-log.sh s76-d27.txt 300
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; }
T=200 run $C/tests/gpu every_hgemm_step_matches_the_f64_reference_or_names_its_constraint --test-threads 1
T=120 run compute-sanitizer --tool memcheck $C/kernel-lab --family hgemm --steps d27,d27-bf16 --check --gemm-sizes 300x520x192,130x264x1024,33x1000x72
T=200 run compute-sanitizer --tool racecheck $C/kernel-lab --family hgemm --steps d27 --check --gemm-sizes 130x264x256
stamp "tests, sanitizers"
SH=${SH:-128x2048x2048,128x1536x2048,128x3072x4096,256x1536x2048,128x3072x768,512x768x384,512x1024x1024,128x2304x768,64x2048x8192,64x4096x4096,32x4096x7168,64x3072x3072,256x1024x4096,128x1024x14336}
for i in 1 2 3; do
  T=150 run $C/kernel-lab --family hgemm --steps d9,d16,d25,d27 --gemm-sizes $SH --reps 20 --warmup 3 --seed 777$i
  stamp "timing $i"
done
T=200 run $C/kernel-lab calibrate --out $OUT/cost-h200-s76c.tsv --samples $OUT/cal-samples-s76c.tsv
stamp calibrate
grep -E "^exit [1-9]|panicked|FAILED" "$L" | head || true
