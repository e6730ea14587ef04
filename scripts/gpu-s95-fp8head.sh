#!/usr/bin/env bash
# Session 95, call 5 (one H200): the FP8 LM head split over ranks (two ranks sharing the GPU). Tiny Llama 3.1
# (vocabulary 2048: split) against HF with FP8 on one GPU and split; the Llama-3-8B-shaped HF checkpoint
# (random weights) with three prompts, 24 greedy tokens: the split head against the whole one at
# --tp-same-gpu 2 (bit-equal expected: both head GEMMs run unsplit in K) and against one GPU. Carry: llm.
set -uo pipefail
. scripts/device-log.sh "s95-fp8head.txt" 400
run python3 scripts/llm-hf-check.py --make-only --models llama3-8b,tiny-llama31
run python3 scripts/llm-hf-check.py --llm $C/llm --models tiny-llama31 --llm-args=--fp8 --report-only --out $OUT/hf-fp8-tp1.md
run python3 scripts/llm-hf-check.py --llm $C/llm --models tiny-llama31 --llm-args="--fp8 --tp-same-gpu 2" --report-only --out $OUT/hf-fp8-tp2same.md
P="128000,791,4062,14198,39935,35308,927,279;128000,40,1093;128000,9906,1917,11,358"
M=/tmp/llm-check/llama3-8b
run $C/llm --model $M --prompt-ids "$P" --max-new 24 --fp8 --json $OUT/fp8-tp1.json
KERNEL_LAB_SPLIT_HEAD=0 run $C/llm --model $M --prompt-ids "$P" --max-new 24 --fp8 --tp-same-gpu 2 --json $OUT/fp8-tp2-whole.json
run $C/llm --model $M --prompt-ids "$P" --max-new 24 --fp8 --tp-same-gpu 2 --json $OUT/fp8-tp2-split.json
run $C/llm --model $M --prompt-ids "$P" --max-new 8 --fp8 --tp-same-gpu 2 --profile --json $OUT/fp8-tp2-split-prof.json
python3 - "$OUT" <<'PY' | tee -a "$L"
import json, sys, os
o = sys.argv[1]; t = {k: json.load(open(os.path.join(o, f"fp8-{k}.json")))["tokens"] for k in ["tp1", "tp2-whole", "tp2-split"]}
print("split == whole (tp-same-gpu 2):", t["tp2-split"] == t["tp2-whole"])
for k in t: print(k, t[k])
PY
for f in $OUT/hf-*.md; do echo "== $f"; cat $f; done
grep -E "LM head|columns placed|all-reduce of the logits" "$L" | head
