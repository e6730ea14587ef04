#!/usr/bin/env bash
# Session 97 (issue 48), d28's new epilogue, call 2: the bench's GPU tests (every HGEMM step, d28's nine forms
# among them, on ragged shapes against f64; call 1 ran the wrong test binary), `calibrate --dtype f16` (d28's
# constants with the new epilogue), and the entry before/after on 40 off-corpus shapes whose pick is d28m128 or
# d28m64 (`offcorpus-shapes.py --n 3000 --seed 97`: all 21 d28m128 ones, 19 of the d28m64 ones drawn), bf16,
# 3 processes alternating. Carry: .carry/kernel-lab, .carry/old/kernel-lab (3ad7ea7), .carry/tests/bench-gpu.
set -uo pipefail
. scripts/device-log.sh s97-d28b.txt 300
for t in every_hgemm_step the_gemm_entry_point_takes_any_shape the_gemm_api_takes_strided; do T=200 run $C/tests/bench-gpu --test-threads 1 $t; done
grep -E "^test |test result" "$L" | tail -40
stamp tests
T=120 run $C/kernel-lab calibrate --dtype f16 --out $OUT/cost-s97.tsv --samples $OUT/cal-samples-s97.tsv
stamp calibrate
S=$(paste -sd, results/2026-12-04-h200-session97/d28-shapes-off40.txt)
T=150 gemm_old_new d28off 972 bf16 --gemm-sizes $S
grep -E "^exit [1-9]|panicked|FAILED|failed" "$L" | head || true
xz -9 -f "$L"
