#!/usr/bin/env bash
# Session 99 (issue 51): step w7 (each warp one contiguous run of the packed FP8 weights' steps, no block
# barrier). Prepared in session 99, which was lent no GPU: not yet run. The fp8_weights GPU tests (w7, w5, w1 on
# every case), memcheck of the decode test, `kernel-lab w8 --against w7` (the library's w5 against w7, each
# interleaved, PROCS processes), then the Llama-3-8B-shaped runner (synthetic weights, batch 1, 2048-token
# prompt, 64 steps, the graph replayed 100 times) with w7 (KERNEL_LAB_W8_STEP=w7), with w5 (the library's step)
# and bf16, alternating, ROUNDS processes. Then (session 100, also not yet run) the runner's prefill in chunks
# and `Model::extend` (the chunked GPU test; prefill of 2048 tokens whole against chunks of 512 and 1024, bf16,
# ROUNDS processes alternating) and a paged cache against the contiguous one at batch 32. Carry: scripts/slim-carry.sh fp8_weights kernel-lab-llm:chunked kernel-lab-llm:kernels.
set -uo pipefail
. scripts/device-log.sh "s99-w7.txt" 300
J=$OUT/json; mkdir -p $J
run $C/tests/fp8_weights --test-threads=1; stamp tests
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
T=200 run $CS --tool memcheck --print-limit 5 $C/tests/fp8_weights --test-threads=1 weight_only_decode_matches_the_f64_product
stamp memcheck
for i in $(seq 1 ${PROCS:-3}); do
  T=120 run $C/kernel-lab w8 --against w7 --shapes 1x6144x4096,1x4096x4096,1x28672x4096,1x4096x14336,1x128256x4096,8x28672x4096,8x4096x14336,1x1024x4096,4x14336x4096 --json $J/w8-$i.json
  stamp "w8 $i"
done
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
T=120 run $C/llm --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1; stamp warm
for i in $(seq 1 ${ROUNDS:-3}); do
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_W8_STEP=w7 $C/llm --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/w7-$i.json
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/w5-$i.json
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/bf16-$i.json
  stamp "round $i"
done
python3 scripts/w8-runner-medians.py $J w7 w5 bf16 | tee -a "$L"
stamp w7-done
run $C/tests/kernel-lab-llm-chunked --nocapture; stamp chunked-test
run $C/tests/kernel-lab-llm-kernels; stamp llm-kernels-test
# Against Hugging Face (random-weight tiny checkpoints, Phi-3 among them): whole prompts, prompts in chunks of
# 11 tokens, a paged cache of 16-token pages.
for args in "" "--prefill-chunk 11" "--page-size 16"; do
  T=240 run python3 scripts/llm-hf-check.py --llm $C/llm --models tiny-llama,tiny-qwen2,tiny-mistral,tiny-phi3 --work /tmp/llm-check --llm-args "$args"
  stamp "hf-check $args"
done
for i in $(seq 1 ${ROUNDS:-3}); do
  for ch in 0 512 1024; do
    opt=(); [ $ch -gt 0 ] && opt=(--prefill-chunk $ch)
    T=120 run $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 4 --batch 1 --ignore-eos "${opt[@]}" --json $J/chunk$ch-$i.json
  done
  stamp "chunks round $i"
done
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, statistics, sys
for ch in (0, 512, 1024):
    v = [json.load(open(f))["prefill_ms"] for f in sorted(glob.glob(f"{sys.argv[1]}/chunk{ch}-*.json"))]
    if v: print(f"prefill 2048 tokens, chunk {ch or 'none'}: median {statistics.median(v):.2f} ms of {len(v)} ({', '.join(f'{x:.2f}' for x in v)})")
PY
# A paged KV cache (64-token pages) against the contiguous one: batch-32 decode of 2048-token prompts, bf16.
for i in $(seq 1 ${ROUNDS:-3}); do
  T=120 run $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 32 --ignore-eos --json $J/contig32-$i.json
  T=120 run $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 32 --ignore-eos --page-size 64 --json $J/paged32-$i.json
  stamp "paged round $i"
done
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, statistics, sys
for tag in ("contig32", "paged32"):
    v = [json.load(open(f)) for f in sorted(glob.glob(f"{sys.argv[1]}/{tag}-*.json"))]
    if v: print(f"{tag}: decode {statistics.median(x['decode_ms_per_step'] for x in v):.3f} ms/step, prefill {statistics.median(x['prefill_ms'] for x in v):.1f} ms (median of {len(v)})")
PY
# Continuous batching: 64 random requests (prompts of 512–1024 tokens, replies of 64–128) through 16 slots, a
# paged cache, against the same requests in static batches of 16 (--slots 16 with every reply at its budget is
# not that: the static figure is 4 runs of `--batch 16 --prompt-len 1024 --max-new 128`, reported beside it).
for i in $(seq 1 ${ROUNDS:-3}); do
  T=200 run $C/llm --model $M --synthetic-weights --prompt-len 1024 --requests 64 --slots 16 --max-new 128 --page-size 64 --json $J/serve-$i.json
  stamp "serve round $i"
done
T=120 run $C/llm --model $M --synthetic-weights --prompt-len 1024 --max-new 128 --batch 16 --ignore-eos --json $J/static16.json
# The same requests arriving 8 a second (Poisson): time to first token and per token under that load.
T=200 run $C/llm --model $M --synthetic-weights --prompt-len 1024 --requests 64 --slots 16 --max-new 128 --page-size 64 --rate 8 --json $J/serve-rate8.json
stamp done
