#!/usr/bin/env python3
"""Per-shape medians of the gemm family's entry point against cuBLAS over several processes' outputs
(`kernel-lab --family gemm ...` text; `--dtype f32` included), by element type: geometric mean, the share of
shapes at or above 0.90x, those under 0.80x and 0.85x, the lowest. usage: entry-medians.py RUN1.txt RUN2.txt RUN3.txt"""
import math, re, statistics, sys, collections
from gemm_table import entry_row

ratios = collections.defaultdict(lambda: collections.defaultdict(list))   # dtype -> shape -> [ratio]
labels = {}
for path in sys.argv[1:]:
    dtype = None
    for line in open(path):
        # The 16-bit entry's header names its element type before "in/out"; the f32 entry's before "entry point".
        m = re.match(r'== gemm: .*?, (\w+) in/out', line) or re.match(r"== gemm: the library's (f32) entry point", line)
        if m:
            dtype = m.group(1); continue
        if line.startswith('=='):
            dtype = None; continue
        row = entry_row(line) if dtype else None
        if row:
            step, shape, x = row
            ratios[dtype][shape].append(x)
            labels[(dtype, shape)] = step
for dtype, by in ratios.items():
    med = {s: statistics.median(v) for s, v in by.items()}
    runs = collections.Counter(len(v) for v in by.values())
    geo = math.exp(sum(math.log(x) for x in med.values()) / len(med))
    ok = sum(x >= 0.90 for x in med.values())
    low = sorted((x, s) for s, x in med.items() if x < 0.80)
    least = min((x, s) for s, x in med.items())
    print(f"{dtype}: {len(med)} shapes (processes per shape: {dict(runs)}), geometric mean {geo:.3f}x cuBLAS, "
          f"{ok}/{len(med)} ({100*ok/len(med):.0f}%) at or above 0.90x, {len(low)} under 0.80x, "
          f"{sum(x < 0.85 for x in med.values())} under 0.85x, lowest {least[0]:.3f} ({labels[(dtype, least[1])]} {least[1]})")
    for x, s in low:
        print(f"    {labels[(dtype, s)]:<14} {s:<20} {x:.3f}")
