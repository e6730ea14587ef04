#!/usr/bin/env python3
"""The f16/bf16 cost model's predictions against what an autotune cache timed: for every (step, shape) the cache
timed (its candidates within 1.3x of the fastest) and `kernel-lab rank --shapes … --candidates` predicted, the
measured/predicted ratio, then per step the ratios' median and range by tile rows of M — to see which step's
constants a card prices wrong, and where (no GPU).
usage: model-vs-timed.py CACHE.json RANK-CANDIDATES.txt [DTYPE (bf16)]
  the second file: kernel-lab rank --shapes SHAPES --gpu NAME --candidates (SHAPES: the cache's shapes)"""
import collections, json, re, statistics, sys

cache, rank = sys.argv[1], sys.argv[2]
dtype = sys.argv[3] if len(sys.argv) > 3 else "bf16"
timed = {}
for key, v in json.load(open(cache))["entries"].items():
    parts = key.split("|")
    if parts[-2] == dtype:
        for t in v["timed"]:
            timed[(parts[-1], t["label"])] = t["median_us"]
ratios = collections.defaultdict(list)
shape = None
for line in open(rank):
    f = line.split()
    if f and f[0] in ("f16", "bf16"):
        shape = f[1] if f[0] == dtype else None
    elif f and f[0] == "candidates:" and shape:
        for m in re.finditer(r"(\S+?)\*? ([\d.]+)(?:,|$)", line.split(":", 1)[1].strip()):
            label, pred = m.group(1).rstrip("*"), float(m.group(2))
            if (shape, label) in timed:
                ratios[label.replace("-" + dtype, "")].append((int(shape.split("x")[0]), shape, timed[(shape, label)] / pred))
print(f"{'step':<12} {'n':>3} {'median':>7}  measured/predicted by rows of M (min-max)")
for step, xs in sorted(ratios.items(), key=lambda kv: statistics.median(r for _, _, r in kv[1])):
    by = collections.defaultdict(list)
    for m, _, r in xs:
        by["1-64" if m <= 64 else "65-128" if m <= 128 else "129-256" if m <= 256 else "257+"].append(r)
    rows = "  ".join(f"{k}: {min(v):.2f}-{max(v):.2f} ({len(v)})" for k, v in sorted(by.items(), key=lambda kv: int(kv[0].split("-")[0].rstrip("+"))))
    print(f"{step:<12} {len(xs):>3} {statistics.median(r for _, _, r in xs):>7.2f}  {rows}")
