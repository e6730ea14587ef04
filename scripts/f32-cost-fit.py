#!/usr/bin/env python3
"""Issue 48 (session 87): fits the f32 choice's cost-model constants (kernel-lab/src/sgemm/cost.rs) to every family's
times at a corpus sample, by least squares on log time, and reports how often the cheapest predicted family is within
5% of the fastest measured one. Inputs: the per-process medians (results/2026-12-02-h200-session87/call3-f32-calibration.tsv.xz:
shape, step, process, median µs, ...) and each step's schedule on each shape as `sgemm::cost::schedule` computes it, on
132 SMs (f32-schedules.tsv.xz: shape, step, the cascade's pick, CTAs, splits, K a CTA walks, blocks an SM, tile rows,
tile columns). Needs numpy and scipy.
usage: f32-cost-fit.py CALIBRATION.tsv.xz SCHEDULES.tsv.xz"""
import collections, lzma, math, statistics, sys
import numpy as np
from scipy.optimize import least_squares

SMS = 132
ROWS = {"v33", "v34"}  # CtaWork::ActualRows
STEPS = ["v11", "v23", "v24", "v33", "v34"]
times, cub = collections.defaultdict(list), collections.defaultdict(list)
for line in lzma.open(sys.argv[1], "rt"):
    if line.startswith("#"):
        continue
    f = line.rstrip("\n").split("\t")
    sh = tuple(map(int, f[0].split("x")))
    (cub[sh] if f[1] == "cuBLAS" else times[(sh, f[1])]).append(float(f[3]))
T = {k: statistics.median(v) for k, v in times.items()}
C = {k: statistics.median(v) for k, v in cub.items()}
S = {}
for line in lzma.open(sys.argv[2], "rt"):
    f = line.rstrip("\n").split("\t")
    S[(tuple(map(int, f[0].split("x"))), f[1])] = tuple(map(int, f[3:9]))


def predict(p, sh, st):
    fixed, k_cta, k_round, split, gbps = p
    ctas, splits, ks, b, rows, _ = S[(sh, st)]
    m, n, k = sh
    w = min(m, rows) if st in ROWS else 1
    t = fixed + ks * (k_cta * math.ceil(ctas / SMS) * w + k_round * math.ceil(ctas / (b * SMS))) * 1e-3 + (split * m * n * splits * 1e-6 if splits > 1 else 0)
    return max(t, fixed + 4.0 * n * k / (gbps * 1e3))


P = {}
for st in STEPS:
    pts = [(sh, T[(sh, st)]) for sh in C if (sh, st) in T]
    res = lambda p: [math.log(predict(p, sh, st) / t) for sh, t in pts]
    r = least_squares(res, [3, 1, 1, 0.01, 3000], bounds=([0, 0, 0, 0, 3000], [50, 1e3, 1e3, 100, 8000]))
    P[st] = r.x
    e = np.array(res(r.x))
    print(f"{st}: {len(pts)} shapes  fixed {r.x[0]:.2f} µs  k_cta {r.x[1]:.4g} ns  k_round {r.x[2]:.4g} ns  split {r.x[3]:.3g} µs/M  stream {r.x[4]:.0f} GB/s"
          f"  rms {math.sqrt((e ** 2).mean()):.3f}  max {abs(e).max():.3f}")
ok = 0
for sh in C:
    cands = [st for st in STEPS if (sh, st) in T]
    pick, best = min(cands, key=lambda st: predict(P[st], sh, st)), min(cands, key=lambda st: T[(sh, st)])
    ok += T[(sh, pick)] <= 1.05 * T[(sh, best)]
print(f"the cheapest predicted within 5% of the fastest measured at {ok} of {len(C)} shapes")
