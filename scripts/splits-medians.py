#!/usr/bin/env python3
"""fw2's split sweep (scripts/gpu-s107.sh CALL=splits): DIR/splits-{rule,1,2,4}-p{1,2,3}.json (`kernel-lab --family fp8
--steps fw2 --json`, one file a setting and process) to one row a shape: fw2's median µs at each setting (the rule's
split as `w1_splits` gives it, then 1, 2, 4 forced), cuBLASLt's per-tensor default mode over every file, the fastest
setting and the rule's time over it. Usage: splits-medians.py DIR"""
import glob, json, os, re, statistics as st, sys
from collections import defaultdict

d = sys.argv[1]
ours, lt = defaultdict(list), defaultdict(list)
for f in sorted(glob.glob(f"{d}/splits-*-p*.json")):
    setting = re.match(r"splits-(\w+)-p\d+\.json", os.path.basename(f)).group(1)
    for r in json.load(open(f)).get("fp8", []):
        t = (r.get("time") or {}).get("median_ms")
        if t is None or r.get("error"):
            continue
        s = r["shape"]
        shape = f"{s['m']}x{s['n']}x{s['k']}"
        if r["step"] == "fw2":
            ours[(shape, setting)].append(1000 * t)
        elif r["step"] == "cuBLAS" and "per-tensor" in r["kernel"] and "fast" not in r["kernel"]:
            lt[shape].append(1000 * t)
settings = ["rule", "1", "2", "4"]
print(f"{'shape':<16}" + "".join(f"{s:>8}" for s in settings) + f"{'cuBLASLt':>10}  fastest  rule/fastest")
key = lambda s: tuple(int(x) for x in s.split("x"))
for shape in sorted({k[0] for k in ours}, key=key):
    med = {s: st.median(ours[(shape, s)]) for s in settings if ours.get((shape, s))}
    best = min(med, key=med.get)
    cells = "".join(f"{med[s]:8.2f}" if s in med else f"{'-':>8}" for s in settings)
    base = f"{st.median(lt[shape]):10.2f}" if lt.get(shape) else f"{'-':>10}"
    print(f"{shape:<16}{cells}{base}  {best:>7}  {med.get('rule', float('nan')) / med[best]:.3f}")
