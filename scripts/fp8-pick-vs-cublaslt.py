#!/usr/bin/env python3
"""The per-tensor pick of `kernel-lab rank --fp8-times TIMES` against cuBLASLt's default mode: for each shape of RANK
(that command's output), the median over processes of the picked step's interleaved ratio to cuBLASLt's per-tensor
mode in TIMES (`scripts/bench-json-times.py fp8` of runs that timed every step); their geometric mean, those under
0.85x and the count under 0.90x. usage: fp8-pick-vs-cublaslt.py TIMES RANK"""
import collections, math, statistics, sys

pct = collections.defaultdict(list)
for line in open(sys.argv[1]):
    if line.startswith('#'):
        continue
    shape, step, _, _, p, kern = line.rstrip('\n').split('\t')
    if kern.endswith('vs per-tensor') and p != 'None':
        pct[(shape, step)].append(float(p))
vals = []
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) >= 7 and f[0] == 'per-tensor' and 'x' in f[1] and pct[(f[1], f[4])]:
        vals.append((f[1], f[4], statistics.median(pct[(f[1], f[4])])))
g = math.exp(sum(math.log(v) for *_, v in vals) / len(vals))
print(f"{len(vals)} shapes: the pick {g:.3f}x cuBLASLt's default mode; under 0.85x: "
      f"{[(s, p, round(v, 3)) for s, p, v in vals if v < 0.85]}; under 0.90x: {sum(v < 0.9 for *_, v in vals)}")
