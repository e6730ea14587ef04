#!/usr/bin/env bash
# Batch-1 decode of the Llama-3-8B shape (synthetic weights) under named environment variants, rounds
# interleaved, 3 processes each: VARIANTS holds lines "name ENV=value …" ("base" with none). Timing
# experiments (KERNEL_LAB_LLM_GEMM_STEP, KERNEL_LAB_LLM_ABLATE, …). Carry: scripts/llm-carry.sh.
set -uo pipefail
. scripts/device-log.sh variants.txt 120
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
J=/tmp/var; mkdir -p $J
run $C/llm --model $M --synthetic-weights --prompt-len 512 --max-new 16 --batch 1   # warm: JIT into the cache
for i in 1 2 3; do
  while read -r name envs; do
    [ -z "$name" ] && continue
    T=90 run env $envs $C/${BIN:-llm} --model $M --synthetic-weights --prompt-len ${P:-512} --max-new 96 --batch ${B:-1} --ignore-eos --json $J/$name-$i.json
  done <<< "$VARIANTS"
done
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, os, sys, statistics as st
d = {}
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    d.setdefault(os.path.basename(f).rsplit("-", 1)[0], []).append(json.load(open(f))["decode_ms_per_step"])
base = st.median(d["base"])
print("| variant | ms per step (median of 3 processes) | against base |")
print("|---|---|---|")
for a, v in d.items():
    m = st.median(v); print(f"| {a} | {m:.3f} ({', '.join(f'{x:.3f}' for x in sorted(v))}) | {m / base:.3f} |")
PY
grep -E "^exit [1-9]|panicked|Error|error" "$L" | head -20 || true
