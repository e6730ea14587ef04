#!/usr/bin/env bash
# Session 63: the runner with a26 (the library's prefill default since this session) against the build
# before (.carry/llm-early: a19), in one call: the tiny HF checkpoints against HF, then prefill of 2048
# tokens at batch 1 and 8 on the Llama-3-8B shape (synthetic weights), alternating, 3 processes each.
# Carry: scripts/llm-carry.sh, plus .carry/llm-early.xz.
set -uo pipefail
. scripts/device-log.sh llm-prefill.txt 200
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
J=/tmp/lp; mkdir -p $J
run python3 scripts/llm-hf-check.py --llm $C/llm --out "$OUT/hf-check.md"
for b in llm llm-early; do run $C/$b --model $M --synthetic-weights --prompt-len 512 --max-new 4 --batch 1; done   # warm: JIT into the cache
for i in 1 2 3; do
  for b in llm llm-early; do
    for n in 1 8; do
      T=90 run $C/$b --model $M --synthetic-weights --prompt-len 2048 --max-new 8 --batch $n --ignore-eos --json $J/p$n-$b-$i.json
    done
  done
done
tar czf "$OUT/json.tar.gz" -C $J .
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, os, sys, statistics as st
d = {}
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    d.setdefault(os.path.basename(f).rsplit("-", 1)[0], []).append(json.load(open(f))["prefill_ms"])
print("| run | prefill ms (median of 3 processes) |"); print("|---|---|")
for k, v in d.items():
    print(f"| {k} | {st.median(v):.2f} ({', '.join(f'{x:.2f}' for x in sorted(v))}) |")
for n in (1, 8):
    print(f"batch {n}: a26 build / a19 build = {st.median(d[f'p{n}-llm']) / st.median(d[f'p{n}-llm-early']):.4f}")
PY
grep -E "^exit [1-9]|panicked|^\| tiny" "$L" | head -20 || true
