#!/usr/bin/env python3
"""Per-round cost of each GEMM step from the autotuner's notes (`--autotune` tables' `note:` lines).

For every candidate timed at every shape: its time over the rounds of the SMs its tiles take
(⌈tiles / SMs⌉) and over K / 4096 — one round's time at K = 4096. Prints, per step, the median, the
range and the coefficient of variation: a small one means the wave model (rounds × a step's round)
describes the step. `gemm::H6_ROUND_ROWS` was fitted with it (results/2026-11-26-h100-session29/call5).

    scripts/autotune-wave-fit.py results/2026-11-26-h100-session29/call5-autotune-grid/grid*.txt
"""
import math
import re
import statistics
import sys

SMS = 132


def tiles(step, m, n):
    """Tiles of a step's output tile on an M×N product (None: a step the model does not cover)."""
    if step in ("h6s4", "h10"):
        return math.ceil(m / 128) * math.ceil(n / 256)
    if step == "h11":
        return math.ceil(m / 128) * math.ceil(n / 192)
    if step in ("d19", "d22r128"):
        return math.ceil(m / 128) * math.ceil(n / 128)
    h = re.fullmatch(r"d2[12]r(\d+)", step)
    return math.ceil(m / int(h.group(1))) * math.ceil(n / 128) if h else None


def main(paths):
    per_step = {}
    note = re.compile(r"note: \S+ (\d+)x(\d+)x(\d+): autotuned \([^)]*\): (.*)")
    for path in paths:
        for line in open(path):
            g = note.match(line)
            if not g:
                continue
            m, n, k = (int(x) for x in g.groups()[:3])
            for part in g.group(4).split("; "):
                step, us = part.split()[:2]
                t = tiles(step, m, n)
                if t is not None:
                    per_step.setdefault(step, []).append(float(us) / (math.ceil(t / SMS) * k / 4096))
    if not per_step:
        sys.exit("no autotune notes found")
    print(f"{'step':8} {'shapes':>6} {'median µs/round':>16} {'min':>7} {'max':>7} {'cv':>6}")
    for step, v in sorted(per_step.items()):
        cv = statistics.pstdev(v) / statistics.mean(v)
        print(f"{step:8} {len(v):6} {statistics.median(v):16.1f} {min(v):7.1f} {max(v):7.1f} {cv:6.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
