#!/usr/bin/env bash
# Where a batch-1 decode step's time goes inside the CUDA graph: the Llama-3-8B shape (synthetic weights),
# the step timed whole and with launches left out (KERNEL_LAB_LLM_ABLATE, timing only: the output is wrong),
# rounds interleaved, 3 processes each. Carry: scripts/llm-carry.sh.
set -uo pipefail
. scripts/device-log.sh ablate.txt 120
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
J=/tmp/abl; mkdir -p $J
for b in ${BINS:-llm}; do run $C/$b --model $M --synthetic-weights --prompt-len 512 --max-new 16 --batch 1; done   # warm: JIT into the cache
# BINS: the runner builds to compare (each .carry/NAME), e.g. "llm llm-early"; ABL: the ablations.
BINS=${BINS:-llm}
ABL=${ABL:-none norm rope attn silu qkv o norm,rope,silu qkv,o,gu,down}
for i in 1 2 3; do
  for a in $ABL; do
    for b in $BINS; do
      T=90 run env KERNEL_LAB_LLM_ABLATE=$a $C/$b --model $M --synthetic-weights --prompt-len ${P:-512} --max-new 96 --batch 1 --ignore-eos --json $J/$b:$a-$i.json
    done
  done
done
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, os, sys, statistics as st
d = {}
for f in glob.glob(sys.argv[1] + "/*.json"):
    a = os.path.basename(f).rsplit("-", 1)[0]
    d.setdefault(a, []).append(json.load(open(f))["decode_ms_per_step"])
print("| build: left out | ms per step (median of 3 processes) | saved µs a step against the build's whole step | a layer |")
print("|---|---|---|---|")
for a, v in sorted(d.items()):
    base = st.median(d[a.split(":")[0] + ":none"])
    m = st.median(v); print(f"| {a} | {m:.3f} ({', '.join(f'{x:.3f}' for x in sorted(v))}) | {1000*(base-m):.0f} | {1000*(base-m)/32:.2f} |")
PY
grep -E "^exit [1-9]|panicked|Error|error" "$L" | head -20 || true
