#!/usr/bin/env python3
"""The FP8 runner A/B's medians: `w8-runner-medians.py DIR A B BF16` reads DIR/{A,B,BF16}-*.json (the `llm --json`
reports of one build or step each, one file a process) and prints each one's median wall and GPU (graph replay)
ms per decode step with the processes' values, whether the greedy tokens agree, and the bf16 / FP8 ratios."""
import glob, json, statistics as st, sys

d, names = sys.argv[1], sys.argv[2:]
r = {}
for v in names:
    x = [json.load(open(f)) for f in sorted(glob.glob(f"{d}/{v}-*.json"))]
    if not x:
        continue
    r[v] = (st.median(e["decode_ms_per_step"] for e in x), st.median(e["replay_ms_per_step"] for e in x), [json.dumps(e["tokens"]) for e in x])
    walls = ", ".join(f"{e['decode_ms_per_step']:.3f}" for e in x)
    gpus = ", ".join(f"{e['replay_ms_per_step']:.3f}" for e in x)
    print(f"{v}: wall {r[v][0]:.3f} ({walls}), GPU {r[v][1]:.3f} ({gpus}); tokens identical across processes: {len(set(r[v][2])) == 1}")
fp8, b16 = names[:-1], names[-1]
if len(fp8) == 2 and all(v in r for v in fp8):
    a, b = fp8
    print(f"{a} tokens == {b} tokens: {r[a][2][0] == r[b][2][0]}; {a} / {b} GPU time {r[a][1] / r[b][1]:.4f}, wall {r[a][0] / r[b][0]:.4f}")
for v in fp8:
    if v in r and b16 in r:
        print(f"{b16} / {v}: wall {r[b16][0] / r[v][0]:.3f}x, GPU {r[b16][1] / r[v][1]:.3f}x")
