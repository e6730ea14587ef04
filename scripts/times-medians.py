#!/usr/bin/env python3
"""A timing table (scripts/bench-json-times.py's form, one row a process and baseline) reduced to one row per
(shape, step) with the median over its rows (the upper one of an even count, as `kernel-lab rank` takes it), baselines and non-positive times dropped: the CPU tests' fixtures
of `kernel-lab rank --f32-times` / `--fp8-times`. Usage: times-medians.py TABLE… > fixture.tsv"""
import lzma, sys
from collections import defaultdict

rows = defaultdict(list)
for f in sys.argv[1:]:
    for line in (lzma.open(f, "rt") if f.endswith(".xz") else open(f)):
        if line.startswith("#") or not line.strip():
            continue
        x = line.rstrip("\n").split("\t")
        if x[1] != "cuBLAS":
            rows[(x[0], x[1])].append(float(x[3]))
print("# shape\tstep\tprocess_file\tmedian_us")
key = lambda k: (tuple(int(d) for d in k[0].split("x")), k[1])
for (shape, step), v in sorted(rows.items(), key=lambda kv: key(kv[0])):
    print(f"{shape}\t{step}\tmedian of {len(v)}\t{sorted(v)[len(v) // 2]:.2f}")
