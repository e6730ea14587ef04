#!/usr/bin/env bash
# Ran in session 103 on build 6219ba09 (results/2026-12-05-h100-session103). Step w7 was removed after it: its w7 part
# needs a build before that.
# Session 102 (issue 51), one device call (~5 minutes): the runner's serving timings of gpu-s100-llm.sh's timing
# half, three processes of each with the static batch beside every serve round, the arriving load once; then step
# w7 again (session 101 measured it, but its log was lost when that session was cut off): the Llama-3-8B-shaped
# runner at batch 1 with w7, w5 (the library's step) and bf16, alternating, and `kernel-lab w8 --against w7`.
# Synthetic weights (bf16, all layers alike). Carry: scripts/slim-carry.sh (the suite binary and `llm`, no tests).
set -uo pipefail
. scripts/device-log.sh "s102.txt" 150
J=$OUT/json; mkdir -p $J
# The device tool brings back at most 8 files: the JSON leaves as one archive, also when the call is cut short.
trap 'tar -cJf $OUT/json.tar.xz -C $OUT json && rm -rf $J' EXIT
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
# The chunked GPU test first (recompute preemption's schedule and tokens against solo prefills), when carried
# (scripts/slim-carry.sh kernel-lab-llm:chunked).
[ -x $C/tests/kernel-lab-llm-chunked ] && { run $C/tests/kernel-lab-llm-chunked --nocapture; stamp chunked-test; }
# The first process JITs the PTX it uses (about a minute on a fresh machine) before its in-process warm-up: no
# timed figure includes it. Most wanted first (the device may be taken back): serving, then w7 in the runner,
# then w7 kernel by kernel.
for i in $(seq 1 ${ROUNDS:-3}); do
  for ch in 0 512 1024; do
    opt=(); [ $ch -gt 0 ] && opt=(--prefill-chunk $ch)
    run $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 4 --batch 1 --ignore-eos "${opt[@]}" --json $J/chunk$ch-$i.json
  done
  run $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 32 --ignore-eos --json $J/contig32-$i.json
  run $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 32 --ignore-eos --page-size 64 --json $J/paged32-$i.json
  # 64 random requests (prompts 512–1024 tokens, replies 64–128) through 16 slots on a paged cache, all at once
  # and arriving 8 a second (Poisson); beside them a static batch of 16 copies of a 1024-token prompt with
  # 128-token replies (the longest request of each kind: what a static batch waits for); the arriving load once.
  run $C/llm --model $M --synthetic-weights --prompt-len 1024 --requests 64 --slots 16 --max-new 128 --page-size 64 --json $J/serve-$i.json
  run $C/llm --model $M --synthetic-weights --prompt-len 1024 --max-new 128 --batch 16 --ignore-eos --json $J/static16-$i.json
  stamp "serving round $i"
done
T=200 run $C/llm --model $M --synthetic-weights --prompt-len 1024 --requests 64 --slots 16 --max-new 128 --page-size 64 --rate 8 --json $J/rate8-1.json
# A pool of 160 pages (16 slots at their longest would hold up to 288): reserved at their longest against
# recompute preemption, the same requests, one process each.
for adm in reserve preempt; do
  opt=(); [ $adm = preempt ] && opt=(--preempt)
  run $C/llm --model $M --synthetic-weights --prompt-len 1024 --requests 64 --slots 16 --max-new 128 --page-size 64 --kv-pages 160 "${opt[@]}" --json $J/pool160-$adm.json
done
python3 scripts/serving-medians.py $J | tee -a "$L"
# ROUNDS=1 W7=0: one serving round and the pools alone (a short device lease: a functional run, no figure).
[ "${W7:-1}" = 0 ] && { stamp done; exit 0; }
for i in 1 2 3; do
  run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_W8_STEP=w7 $C/llm --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/w7-$i.json
  run env KERNEL_LAB_LLM_REPLAY=100 $C/llm --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/w5-$i.json
  run env KERNEL_LAB_LLM_REPLAY=100 $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/bf16-$i.json
  stamp "runner round $i"
done
python3 scripts/w8-runner-medians.py $J w7 w5 bf16 | tee -a "$L"
for i in 1 2 3; do
  run $C/kernel-lab w8 --against w7 --shapes 1x6144x4096,1x4096x4096,1x28672x4096,1x4096x14336,1x128256x4096,8x28672x4096,8x4096x14336,1x1024x4096,4x14336x4096 --json $J/w8-$i.json
  stamp "w8 $i"
done
stamp done
