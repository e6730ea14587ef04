#!/usr/bin/env bash
# Session 70 (issue 51): the batch-1 decode step's GPU time (the captured graph replayed back to back,
# `KERNEL_LAB_LLM_REPLAY`) and its wall time per step, for this build (ad3), this build with the cache not
# ready at launch (ad2 with the one-round-trip combine: KERNEL_LAB_LLM_CACHE_AT_LAUNCH=0) and 20c99da with
# the replay timing patched in (.carry/llm-old-r), alternating, ROUNDS processes each (Llama-3-8B shape,
# synthetic weights, 2048-token prompt, 64 steps).
set -uo pipefail
. scripts/device-log.sh "s70-replay.txt" 120
J=/tmp/s70r; mkdir -p $J
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
for b in llm llm-old-r; do run $C/$b --model $M --synthetic-weights --prompt-len 128 --max-new 8 --batch 1; done   # warm: JIT
for i in $(seq 1 ${ROUNDS:-4}); do
  for v in "ad3 llm" "ad2 llm KERNEL_LAB_LLM_CACHE_AT_LAUNCH=0" "old llm-old-r"; do
    set -- $v
    T=90 run env KERNEL_LAB_LLM_REPLAY=100 ${3:-X=1} $C/$2 --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/$1-$i.json
  done
done
tar czf "$OUT/json.tgz" -C $J .
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, os, sys, statistics as st
d = {}
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    k = os.path.basename(f).rsplit("-", 1)[0]; r = json.load(open(f))
    d.setdefault(k, {"wall": [], "gpu": [], "tok": []})
    d[k]["wall"].append(r["decode_ms_per_step"]); d[k]["gpu"].append(r["replay_ms_per_step"]); d[k]["tok"].append(r["tokens"])
print("| build | ms per step (wall) | graph replayed (GPU) | host's share |"); print("|---|---|---|---|")
for k, v in d.items():
    w, g = st.median(v["wall"]), st.median(v["gpu"])
    print(f"| {k} | {w:.3f} ({', '.join(f'{x:.3f}' for x in sorted(v['wall']))}) | {g:.3f} ({', '.join(f'{x:.3f}' for x in sorted(v['gpu']))}) | {1e3 * (w - g):.0f} µs |")
for k in ("ad3", "ad2"):
    print(f"{k} / old: wall {st.median(d[k]['wall']) / st.median(d['old']['wall']):.4f}, GPU {st.median(d[k]['gpu']) / st.median(d['old']['gpu']):.4f}")
toks = [t for v in d.values() for t in v["tok"]]
print("greedy tokens identical across builds and processes:", all(t == toks[0] for t in toks))
PY
grep -E "^exit [1-9]|panicked|rror" "$L" | head
