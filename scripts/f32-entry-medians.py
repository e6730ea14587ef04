#!/usr/bin/env python3
"""Per-shape medians of the f32 entry point (`kernel-lab --family gemm --dtype f32 ... --json F`) against cublasSgemm
over several processes' JSON: geometric mean, the share at or above 0.90x, those under 0.85x, the lowest six.
usage: f32-entry-medians.py RUN1.json RUN2.json ..."""
import collections, json, math, statistics, sys

ratios, step = collections.defaultdict(list), {}
for path in sys.argv[1:]:
    for r in json.load(open(path)).get("gemm_f32", []):
        if r["step"] == "cuBLAS" or r.get("error") or not r.get("pct_of_cublas"):
            continue
        s = r["shape"]
        key = f'{s["m"]}x{s["n"]}x{s["k"]}'
        ratios[key].append(r["pct_of_cublas"])
        step[key] = r["step"]
med = {k: statistics.median(v) for k, v in ratios.items()}
geo = math.exp(sum(math.log(x) for x in med.values()) / len(med))
print(f"f32 entry vs cublasSgemm: {len(med)} shapes (processes per shape: {dict(collections.Counter(len(v) for v in ratios.values()))}), "
      f"geometric mean {geo:.3f}x, {sum(x >= 0.9 for x in med.values())}/{len(med)} at or above 0.90x, {sum(x < 0.85 for x in med.values())} under 0.85x")
for k, x in sorted(med.items(), key=lambda kv: kv[1])[:6]:
    print(f"    {step[k]:<6} {k:<20} {x:.3f}")
