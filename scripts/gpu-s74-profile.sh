#!/usr/bin/env bash
# Session 74 (issue 51): where the batch-1 decode step's time goes with FP8 weights (w5) and with bf16 weights:
# `llm --profile` (eager, an event after each launch) on the Llama-3-8B shape, one process each. $OUT gets the log and JSON.
set -uo pipefail
. scripts/device-log.sh "s74-profile.txt" 300
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
T=200 run $C/llm --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 16 --batch 1 --ignore-eos --profile --json $OUT/prof-fp8.json
T=200 run $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 16 --batch 1 --ignore-eos --profile --json $OUT/prof-bf16.json
python3 - "$OUT" <<'PY' | tee -a "$L"
import json, sys
for v in ("fp8", "bf16"):
    d = json.load(open(f"{sys.argv[1]}/prof-{v}.json")); p = d["profile"]
    print(f"== {v}: step {d['decode_ms_per_step']:.3f} ms (graphed), kernels {p['kernels_ms']:.3f} ms (eager, events)")
    for r in p["rows"]:
        gbs = r["bytes"] / r["us"] / 1e3 if r["us"] and r["bytes"] else 0
        print(f"  {r['name']:<40} x{r['count']:<3} {r['us']:9.1f} us  {r['us'] / r['count']:7.2f} us each  {gbs:6.0f} GB/s")
PY
