#!/usr/bin/env bash
# Session 70 (issue 51): the greedy decode step with its next inputs advanced on the device by the argmax
# (no host copies between steps) against the same build copying them every step (KERNEL_LAB_LLM_HOST_INPUTS=1):
# the runner's kernel tests (the argmax's advance), the tiny HF checkpoints against HF (32 greedy tokens each),
# then batch 1 (2048-token prompt, 64 steps, wall and graph-replayed) and FP8 batch 1, alternating, 3 processes.
set -uo pipefail
. scripts/device-log.sh "s70-inputs.txt" 120
J=/tmp/s70i; mkdir -p $J
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
run $C/tests/llm-kernels --test-threads=1
T=300 run python3 scripts/llm-hf-check.py --llm $C/llm --out "$OUT/hf-check.md"
run $C/llm --model $M --synthetic-weights --prompt-len 128 --max-new 8 --batch 1   # warm: JIT
for i in 1 2 3; do
  for v in "device X=1" "host KERNEL_LAB_LLM_HOST_INPUTS=1"; do
    set -- $v
    T=90 run env KERNEL_LAB_LLM_REPLAY=40 $2 $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/b1:$1-$i.json
    T=90 run env $2 $C/llm --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/fp8:$1-$i.json
  done
done
tar czf "$OUT/json.tgz" -C $J .
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, os, sys, statistics as st
d = {}
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    k = os.path.basename(f).rsplit("-", 1)[0]; r = json.load(open(f))
    e = d.setdefault(k, {"wall": [], "gpu": [], "tok": []})
    e["wall"].append(r["decode_ms_per_step"]); e["tok"].append(r["tokens"])
    if r.get("replay_ms_per_step"): e["gpu"].append(r["replay_ms_per_step"])
print("| run:inputs | ms per step (wall) | graph replayed (GPU) |"); print("|---|---|---|")
for k, v in sorted(d.items()):
    g = f"{st.median(v['gpu']):.3f} ({', '.join(f'{x:.3f}' for x in sorted(v['gpu']))})" if v["gpu"] else "—"
    print(f"| {k} | {st.median(v['wall']):.3f} ({', '.join(f'{x:.3f}' for x in sorted(v['wall']))}) | {g} |")
for r in ("b1", "fp8"):
    print(f"{r}: device / host = {st.median(d[r + ':device']['wall']) / st.median(d[r + ':host']['wall']):.4f}; greedy tokens identical:",
          all(t == d[r + ':host']['tok'][0] for t in d[r + ':device']['tok'] + d[r + ':host']['tok']))
PY
grep -E "^exit [1-9]|test result|panicked|^\| tiny" "$L" | head
