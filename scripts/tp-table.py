#!/usr/bin/env python3
"""The session-95 TP scripts' table: `tp-table.py DIR [REF]` groups DIR's `llm --json` files by name without
their `-N` process suffix and prints, per group, each process's graph-replay ms a step and the median; with
REF (a group, e.g. `tp2-old`), whether every run's greedy tokens equal REF's first run's. Groups whose name
starts with `b32` compare against `b32-` + REF."""
import glob, json, os, statistics as st, sys

d = sys.argv[1]
ref_name = sys.argv[2] if len(sys.argv) > 2 else None
runs = {}
for f in sorted(glob.glob(os.path.join(d, "*.json"))):
    runs.setdefault(os.path.basename(f).rsplit("-", 1)[0], []).append(json.load(open(f)))
for v, js in runs.items():
    r = [j.get("replay_ms_per_step") or float("nan") for j in js]
    w = [j["decode_ms_per_step"] for j in js]
    line = f"| {v} | {' / '.join(f'{x:.3f}' for x in r)} | median {st.median(r):.3f} | wall {st.median(w):.3f} |"
    if ref_name:
        ref = runs.get(("b32-" + ref_name) if v.startswith("b32") else ref_name, [{}])[0].get("tokens")
        line += f" tokens as {ref_name}: {all(j.get('tokens') == ref for j in js)} |"
    print(line)
