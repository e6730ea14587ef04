#!/usr/bin/env bash
# Session 107's device plan (issues 51, 48), written without a GPU (the session was lent none): run it as two calls.
#   CALL=silu (~5 min): the SwiGLU epilogue's first GPU run (W8Plan::silu_gate_up, fp8_w5_silu_*): the FP8 weights'
#     GPU tests (its new one against the host, bad input) and the runner kernels' test (bitwise against the
#     product then silu_mul, bf16 and f16), memcheck of both new tests, racecheck of the llm one; the same for the
#     residual-norm tail (W8Plan::residual_rmsnorm, fp8_w5_norm_t8_*: against the host; bitwise against add_rmsnorm).
#   CALL=runner (~6 min): the Llama-3-8B-shaped runner at batch 1, FP8 with the SwiGLU epilogue (KERNEL_LAB_W8_SILU=1),
#     with the residual-norm tail (KERNEL_LAB_W8_NORM=1), with both, with neither, and bf16, 3 processes alternating
#     (the graph replayed 100 times), one `--profile` run of both / neither / bf16 (an event after each launch:
#     where the step's time goes), and batch 32 with and without the SwiGLU epilogue (one process each).
#     Keep it (the runner's default) only if the tests pass bitwise and the step is faster; the prediction (the
#     FP8 ladder README, row 4): 3.32 -> ~3.25 ms on an H100, bf16 / FP8 1.695 -> ~1.73x.
#   CALL=f27n128 (~5 min): scripts/gpu-f27n128.sh (f27n128's first run: FP8 step test, sanitizers, 3 processes).
#   CALL=splits (~5 min): fw2 at few-row shapes with its split of K forced (KERNEL_LAB_W1_SPLITS=1, 2, 4) and as the
#     rule gives it (w1_splits: fill one wave of two blocks a SM), cuBLASLt beside it, 3 processes. Why: on the H100
#     fw2 took 9.8 us at 4x3072x3072 (9.4 MB: 3.4 us of streaming at its calibrated rate) and 0.845-0.85x cuBLASLt
#     there and at 8x3072x4096; at 8 MB of weights its times were 7.1 us unsplit, 9.0-9.4 split 2-4 ways (session 106).
#     Predicted: one split (or two where K is deep) within 5% of the rule's time or faster at <= 16 MB; the rule
#     ahead at >= 40 MB. What it decides: whether w1_splits needs a term for the split's fix-up at small shapes.
# Carry: scripts/slim-carry.sh fp8 fp8_weights kernel-lab-llm:kernels
set -uo pipefail
if [ "${CALL:-silu}" = f27n128 ]; then exec bash scripts/gpu-f27n128.sh; fi
if [ "${CALL:-silu}" = splits ]; then
  . scripts/device-log.sh s107-splits.txt 120
  S=4x3072x3072,8x3072x4096,1x1024x2048,2x4096x2048,8x4096x2048,16x2048x4096,8x8192x1024,16x5120x2560,1x4096x4096,16x4608x3072,4x1024x4096,16x5120x8192
  for i in 1 2 3; do
    for sp in rule 1 2 4; do
      echo "== set splits $sp process $i" | tee -a "$L"
      run env $([ $sp = rule ] || echo KERNEL_LAB_W1_SPLITS=$sp) $C/kernel-lab --family fp8 --steps fw2 --gemm-sizes $S --reps 10 --warmup 2 --seed 1070$i --json "$OUT/splits-$sp-p$i.json" --out /tmp/r
    done
    stamp "process $i"
  done
  python3 scripts/splits-medians.py "$OUT" | tee -a "$L"
  grep -E "^exit [1-9]|panicked" "$L" | head || true
  xz -9 -f "$L"
  exit 0
fi
if [ "${CALL:-silu}" = silu ]; then
. scripts/device-log.sh s107-silu.txt 300
T=300 run $C/tests/fp8_weights --test-threads 1
T=300 run $C/tests/kernel-lab-llm-kernels --test-threads 1 the_fp8_
stamp tests
T=120 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/fp8_weights --test-threads 1 silu_gate_up_is_the_product_then_silu_mul
T=120 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/fp8_weights --test-threads 1 residual_rmsnorm_is_the_product
T=120 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/kernel-lab-llm-kernels --test-threads 1 the_fp8_
T=150 run compute-sanitizer --tool racecheck --error-exitcode 9 $C/tests/kernel-lab-llm-kernels --test-threads 1 the_fp8_
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|SKIPPED" "$L" | tail -8
stamp sanitizers
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
exit 0
fi
. scripts/device-log.sh s107-runner.txt 150
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
J=$OUT/runner; mkdir -p $J
T=150 run $C/llm --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1
# Four FP8 builds of the step by switch (w5: neither; silu; norm; both) and bf16, alternating, 3 processes.
sw() { case $1 in silu) echo KERNEL_LAB_W8_SILU=1;; norm) echo KERNEL_LAB_W8_NORM=1;; both) echo KERNEL_LAB_W8_SILU=1 KERNEL_LAB_W8_NORM=1;; *) echo KERNEL_LAB_W8_SILU=0;; esac; }
for i in 1 2 3; do
  for v in both silu norm w5; do
    run env KERNEL_LAB_LLM_REPLAY=100 $(sw $v) $C/llm --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/$v-$i.json
  done
  run env KERNEL_LAB_LLM_REPLAY=100 $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/bf16-$i.json
  stamp "runner round $i"
done
python3 scripts/w8-runner-medians.py $J silu w5 bf16 | tee -a "$L"
python3 scripts/w8-runner-medians.py $J norm w5 bf16 | tee -a "$L"
python3 scripts/w8-runner-medians.py $J both w5 bf16 | tee -a "$L"
for v in both w5 bf16; do
  opt=(); [ $v != bf16 ] && opt=(--fp8)
  echo "== profile $v" | tee -a "$L"
  run env $(sw $v) $C/llm --model $M --synthetic-weights "${opt[@]}" --prompt-len 2048 --max-new 16 --batch 1 --ignore-eos --profile --json $J/profile-$v.json
done
for v in silu w5; do
  run env KERNEL_LAB_LLM_REPLAY=20 KERNEL_LAB_W8_SILU=$([ $v = silu ] && echo 1 || echo 0) $C/llm --model $M --synthetic-weights --fp8 --prompt-len 1024 --max-new 32 --batch 32 --ignore-eos --json $J/b32-$v-1.json
done
python3 scripts/w8-runner-medians.py $J b32-silu b32-w5 none | tee -a "$L"
stamp done
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
