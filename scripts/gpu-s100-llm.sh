#!/usr/bin/env bash
# Session 100 (issue 51): the runner's serving pieces, written in session 100, which was lent no GPU: not yet run.
# The chunked GPU test (chunks, extend, paged cache, 20 decode steps, continuous batching against solo prefills)
# and the row kernels' test (rope and gather_kv on both cache layouts); the HF check (tiny Llama, Qwen2,
# Mistral, Phi-3) whole, in chunks of 11 tokens and on a paged cache; then on the Llama-3-8B shape (synthetic
# weights, bf16): prefill of 2048 tokens whole against chunks of 512 and 1024, batch-32 decode paged against
# contiguous, and 64 requests (prompts 512–1024, replies 64–128) through 16 slots all at once and arriving 8 a
# second, beside a static batch of 16; ROUNDS processes (default 2) each. PART=tests or PART=timing runs one half
# (each under 10 minutes). Carry: scripts/slim-carry.sh kernel-lab-llm:chunked kernel-lab-llm:kernels.
set -uo pipefail
. scripts/device-log.sh "s100-llm-${PART:-all}.txt" 300
J=$OUT/json; mkdir -p $J
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
if [ "${PART:-all}" != timing ]; then
run $C/tests/kernel-lab-llm-chunked --nocapture; stamp chunked-test
run $C/tests/kernel-lab-llm-kernels; stamp llm-kernels-test
# Against Hugging Face (random-weight tiny checkpoints, Phi-3 among them): whole prompts, prompts in chunks of
# 11 tokens, a paged cache of 16-token pages.
for args in "" "--prefill-chunk 11" "--page-size 16"; do
  T=240 run python3 scripts/llm-hf-check.py --llm $C/llm --models tiny-llama,tiny-qwen2,tiny-mistral,tiny-phi3 --work /tmp/llm-check --llm-args "$args"
  stamp "hf-check $args"
done
fi
if [ "${PART:-all}" != tests ]; then
for i in $(seq 1 ${ROUNDS:-2}); do
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
for i in $(seq 1 ${ROUNDS:-2}); do
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
# paged cache; beside it one static batch of 16 copies of a 1024-token prompt with 128-token replies (its
# tokens a second the yardstick: a static batch of these requests would wait for each batch's longest).
for i in $(seq 1 ${ROUNDS:-2}); do
  T=200 run $C/llm --model $M --synthetic-weights --prompt-len 1024 --requests 64 --slots 16 --max-new 128 --page-size 64 --json $J/serve-$i.json
  stamp "serve round $i"
done
T=120 run $C/llm --model $M --synthetic-weights --prompt-len 1024 --max-new 128 --batch 16 --ignore-eos --json $J/static16.json
# The same requests arriving 8 a second (Poisson): time to first token and per token under that load.
T=200 run $C/llm --model $M --synthetic-weights --prompt-len 1024 --requests 64 --slots 16 --max-new 128 --page-size 64 --rate 8 --json $J/serve-rate8.json
fi
stamp done
