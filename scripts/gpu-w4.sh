#!/usr/bin/env bash
# Session 59 (issues 51 and 48): FP8 weight-only step w4 (the weights through a per-lane cp.async ring) against w1, in one
# call of under 10 minutes: the GPU tests (both streams against the f64 product; fw1/fw2/fw3 against the reference),
# `kernel-lab w8` × RUNS (w4 against the 16-bit GEMM and against w1, interleaved), the FP8 family's per-tensor decode
# routes fw1, fw2, fw3 against f14 and cuBLASLt × RUNS, then `llm` at batch 1 on a Llama-3-8B-shaped synthetic
# checkpoint (scripts/llama3-8b-config.json): --fp8 with w4, --fp8 with w1 (KERNEL_LAB_WEIGHT_STREAM=w1) and bf16,
# alternating, RUNS processes each; memcheck of the weight-only test last. NCU=1: ncu of w4, d2 and w1 first; FW1_W1=1:
# fw1 on w1 once; TESTS=0: no tests, no memcheck.
# Carry: scripts/slim-carry.sh fp8_weights fp8. Outputs: $OUT/w4.txt, $OUT/json.tar.gz.
set -uo pipefail
RUNS=${RUNS:-3}
SHAPES=${SHAPES:-1x16000x8192,4x5120x2560,1x2560x3072,1x4096x4096,2x6144x4096,8x28672x4096,16x4096x14336,1x128256x4096,12x4096x4096,16x28672x4096}
. scripts/device-log.sh w4.txt 300
J=/tmp/w4-json; mkdir -p $J
export XDG_CACHE_HOME=/tmp/xdg-w4
start=$(date +%s)
left() { echo $(( ${1} - ($(date +%s) - start) )); }
if [ "${NCU:-0}" = 1 ]; then
  # One launch of each after warm-up: w4 (the plan), d2 (16-bit), w1, at 1x28672x4096 (w8 runs them in that order).
  T=120 run ncu --clock-control none -k regex:"fp8_w|hgemm_decode" --launch-skip 30 --launch-count 6 --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section WarpStateStats --metrics launch__shared_mem_config_size,launch__occupancy_limit_shared_mem \
    $C/kernel-lab w8 --shapes 1x28672x4096
fi
if [ "${TESTS:-1}" = 1 ]; then
  T=150 run $C/tests/fp8_weights
  T=120 run $C/tests/fp8 the_weight_only_routes gemm_fp8_runs autotune_picks
fi
for i in $(seq 1 $RUNS); do T=90 run $C/kernel-lab w8 --json $J/w8-$i.json; done
for i in $(seq 1 $RUNS); do
  T=100 run $C/kernel-lab --family fp8 --gemm-sizes $SHAPES --steps f14,fw1,fw2,fw3 --seed $((5960 + i)) --json $J/fp8-$i.json --out /tmp/r
done
# fw1 on w1 (the weight stream switch), once, beside the default runs above.
[ "${FW1_W1:-0}" = 1 ] && T=100 run env KERNEL_LAB_WEIGHT_STREAM=w1 $C/kernel-lab --family fp8 --gemm-sizes $SHAPES --steps fw1 --seed 5969 --json $J/fp8-fw1w1.json --out /tmp/r
M=/tmp/llama3-8b-synth; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
for i in $(seq 1 $RUNS); do
  [ "$(left 520)" -lt 40 ] && { echo "skip llm round $i: time" | tee -a $L; break; }
  T=60 run $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --fp8 --json $J/fp8-w4-$i.json
  T=60 run env KERNEL_LAB_WEIGHT_STREAM=w1 $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --fp8 --json $J/fp8-w1-$i.json
  T=60 run $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --json $J/bf16-$i.json
done
l=$(left 570); [ "${TESTS:-1}" = 1 ] && [ "$l" -gt 30 ] && T=$l run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/fp8_weights weight_only_decode
tar czf "$OUT/json.tar.gz" -C $J .
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|^\| |ms per|GPU:|SKIPPED|skip" "$L" | head -150
