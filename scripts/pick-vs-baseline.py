#!/usr/bin/env python3
"""The picks of a `kernel-lab rank --f32-times`/`--fp8-times` listing against the baseline, from the timing table
(scripts/bench-json-times.py): per shape the pick's median over processes of pct_of_cublas (the baseline's time over
the step's, interleaved in each process), then their geometric mean, the share at or above 0.90 and the lowest.
Usage: pick-vs-baseline.py TIMES.tsv RANK.txt [KERNEL_SUFFIX: e.g. "vs per-tensor"]"""
import math, statistics, sys
from collections import defaultdict

times, rank = sys.argv[1], sys.argv[2]
sub = sys.argv[3] if len(sys.argv) > 3 else ""
pct = defaultdict(list)
for line in open(times):
    if line.startswith("#"):
        continue
    shape, step, _, _, p, kernel = line.rstrip("\n").split("\t")[:6]
    if p not in ("None", "") and kernel.endswith(sub):
        pct[(shape, step)].append(float(p))
rows = []
for line in open(rank):
    f = line.split()
    if len(f) >= 6 and "x" in f[0] and f[0][0].isdigit() and f[3] != "-":
        key = (f[0], f[3].split("+")[0])
        if key in pct:
            rows.append((statistics.median(pct[key]), f[0], f[3]))
g = math.exp(sum(math.log(r[0]) for r in rows) / len(rows))
low = min(rows)
print(f"{len(rows)} shapes: geometric mean {g:.3f}x the baseline, {sum(r[0] >= 0.9 for r in rows)}/{len(rows)} >= 0.90x, "
      f"{sum(r[0] < 0.85 for r in rows)} under 0.85x, lowest {low[0]:.3f} ({low[2]} {low[1]})")
