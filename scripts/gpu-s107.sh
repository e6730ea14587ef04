#!/usr/bin/env bash
# Session 107's device plan (issues 51, 48), written without a GPU (the session was lent none): run it as two calls.
#   CALL=silu (~8 min): the SwiGLU epilogue's first GPU run (W8Plan::silu_gate_up, fp8_w5_silu_*): the FP8 weights'
#     GPU tests (its new one against the host, bad input) and the runner kernels' test (bitwise against the
#     product then silu_mul), memcheck of both new tests, racecheck of the llm one; then the Llama-3-8B-shaped runner at
#     batch 1, FP8 with the epilogue (KERNEL_LAB_W8_SILU=1), FP8 without, bf16, 3 processes alternating (the graph
#     replayed 100 times), and one `--profile` run of each (an event after each launch: where the step's time goes).
#     Keep it (the runner's default) only if the tests pass bitwise and the step is faster; the prediction (the
#     FP8 ladder README, row 4): 3.32 -> ~3.25 ms on an H100, bf16 / FP8 1.695 -> ~1.73x.
#   CALL=f27n128 (~5 min): scripts/gpu-f27n128.sh (f27n128's first run: FP8 step test, sanitizers, 3 processes).
# Carry: scripts/slim-carry.sh fp8 fp8_weights kernel-lab-llm:kernels
set -uo pipefail
if [ "${CALL:-silu}" = f27n128 ]; then exec bash scripts/gpu-f27n128.sh; fi
. scripts/device-log.sh s107-silu.txt 300
T=300 run $C/tests/fp8_weights --test-threads 1
T=300 run $C/tests/kernel-lab-llm-kernels --test-threads 1 the_fp8_swiglu_epilogue_equals_the_gemm_then_silu_mul
stamp tests
T=200 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/fp8_weights --test-threads 1 silu_gate_up_is_the_product_then_silu_mul
T=200 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/kernel-lab-llm-kernels --test-threads 1 the_fp8_swiglu_epilogue
T=200 run compute-sanitizer --tool racecheck --error-exitcode 9 $C/tests/kernel-lab-llm-kernels --test-threads 1 the_fp8_swiglu_epilogue
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|SKIPPED" "$L" | tail -8
stamp sanitizers
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
J=$OUT/runner; mkdir -p $J
T=150 run $C/llm --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1
for i in 1 2 3; do
  run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_W8_SILU=1 $C/llm --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/silu-$i.json
  run env KERNEL_LAB_LLM_REPLAY=100 $C/llm --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/w5-$i.json
  run env KERNEL_LAB_LLM_REPLAY=100 $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/bf16-$i.json
  stamp "runner round $i"
done
python3 scripts/w8-runner-medians.py $J silu w5 bf16 | tee -a "$L"
for v in silu w5 bf16; do
  opt=(); [ $v != bf16 ] && opt=(--fp8)
  echo "== profile $v" | tee -a "$L"
  run env KERNEL_LAB_W8_SILU=$([ $v = silu ] && echo 1 || echo 0) $C/llm --model $M --synthetic-weights "${opt[@]}" --prompt-len 2048 --max-new 16 --batch 1 --ignore-eos --profile --json $J/profile-$v.json
done
stamp done
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
