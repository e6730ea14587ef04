#!/usr/bin/env bash
# Session 104, call 3 (issue 51): continuous batching with mixed steps (`serve::Batching::Mixed`: an admission's
# prompts and the running sequences' next tokens in one forward pass) against separate admission steps
# (`--separate`: the prompts alone, then a decode step over every slot — session 103's 0.855× a static batch).
# *Predicted* (before any run; session 103's H100 run: 446 decode steps, 46 admissions, 1464 tokens/s): most
# admissions become mixed steps, ~45 decode steps fewer at ~7 ms each against ~1–2 ms more in each mixed pass
# (the running sequences' cached rows gathered, one query row each): **1.05–1.09× the tokens a second**, the
# static-batch ratio 0.90–0.93; time to first token about the same all at once, per token after it lower.
#   1. the chunked GPU test (mixed and separate schedules, every served token against a solo prefill), also
#      with sm_90a withheld;
#   2. 64 requests (512–1024 + 64–128 tokens) through 16 slots, mixed and --separate alternating, with the
#      static batch of 16 × (1024 + 128) beside each round, 3 processes; arriving 8 a second once each;
#      a 160-page pool with --preempt, mixed and separate, once each.
# Ran first (call 3, 183b6f31) with the mixed step as `Model::extend` of every row (the running sequences'
# cached rows gathered, their one query row each in 128-row prefill tiles): 1.029× separate. Call 4 runs
# `Model::mixed` (decode attention for the running rows on the cache, prefill attention for the prompts on
# their own K and V, no gather). *Predicted* for it (before the run): the mixed step ~1 ms over the extend
# alone where call 3's cost ~5 ms: **1.06–1.08× separate**, the static-batch ratio ~0.91–0.93. Then memcheck
# of the chunked test (the mixed step's views and plans).
# Synthetic Llama-3-8B-shaped weights. Carry: scripts/slim-carry.sh kernel-lab-llm:chunked
set -uo pipefail
. scripts/device-log.sh "s104-serve.txt" 150
J=$OUT/json; mkdir -p $J
trap 'tar -cJf $OUT/json.tar.xz -C $OUT json && rm -rf $J' EXIT
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
run $C/tests/kernel-lab-llm-chunked --nocapture; stamp chunked-test
run env KERNEL_LAB_WITHHOLD=sm_90a $C/tests/kernel-lab-llm-chunked; stamp chunked-test-withheld
S=(--model $M --synthetic-weights --prompt-len 1024 --requests 64 --slots 16 --max-new 128 --page-size 64)
for i in 1 2 3; do
  run $C/llm "${S[@]}" --json $J/serve-$i.json
  run $C/llm "${S[@]}" --separate --json $J/servesep-$i.json
  run $C/llm --model $M --synthetic-weights --prompt-len 1024 --max-new 128 --batch 16 --ignore-eos --json $J/static16-$i.json
  stamp "serving round $i"
done
T=200 run $C/llm "${S[@]}" --rate 8 --json $J/rate8-1.json
T=200 run $C/llm "${S[@]}" --rate 8 --separate --json $J/rate8sep-1.json
run $C/llm "${S[@]}" --kv-pages 160 --preempt --json $J/pool160-preempt.json
run $C/llm "${S[@]}" --kv-pages 160 --preempt --separate --json $J/pool160-preempt-separate.json
python3 scripts/serving-medians.py $J | tee -a "$L"
T=400 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/kernel-lab-llm-chunked; stamp memcheck
stamp done
grep -E "^exit [1-9]|panicked" "$L" | head || true
