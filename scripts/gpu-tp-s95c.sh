#!/usr/bin/env bash
# Prepared at 4aaefe4 (build A) with 6b10103 and 8676d09 as the others; not run (the two-GPU machine was not lent again).
# Session 95 (issue 52), call 3: which of call 2's changes to the fused all-reduce cost time. TP = 2 batch-1
# decode (Llama-3-8B shape, synthetic weights, 512-token prompt, 64 steps, graph replayed 100 times) by three
# builds, 3 processes interleaved: .carry/old/llm (call 1's v3), .carry/llm (A: the epoch read before the PDL
# wait and the one-block end), .carry/new/llm (call 2's: A plus the first row's loads before the barrier).
set -uo pipefail
. scripts/nccl-path.sh
. scripts/device-log.sh "tp-s95c.txt" 300
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
D="$OUT/tp"; mkdir -p "$D"
R="--model $M --synthetic-weights --prompt-len 512 --max-new 64 --ignore-eos --batch 1"
for b in old new .; do T=200 run $C/$b/llm $R --tp 2 --max-new 8; done
for i in 1 2 3; do
  for b in old a new; do
    bin=$C/llm; [ $b != a ] && bin=$C/$b/llm
    T=120 run env KERNEL_LAB_LLM_REPLAY=100 $bin $R --tp 2 --json "$D/tp2-$b-$i.json"
  done
  stamp "process $i"
done
python3 - "$D" <<'PY' | tee -a "$L"
import json, sys, glob, os, statistics as st
d = sys.argv[1]; runs = {}
for f in sorted(glob.glob(os.path.join(d, "*.json"))):
    v = os.path.basename(f).rsplit("-", 1)[0]; runs.setdefault(v, []).append(json.load(open(f)))
ref = runs.get("tp2-old", [{}])[0].get("tokens")
for v, js in runs.items():
    r = [j.get("replay_ms_per_step") or float("nan") for j in js]
    print(f"| {v} | {' / '.join(f'{x:.3f}' for x in r)} | median {st.median(r):.3f} | tokens as old: {all(j.get('tokens') == ref for j in js)} |")
PY
cp "$L" "$D/"; (cd "$OUT" && tar czf tp-s95c.tar.gz tp && rm -rf tp)
