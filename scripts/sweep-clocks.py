#!/usr/bin/env python3
"""Which measurements of a `kernel-lab --json` run were taken while the GPU was power-capped.

Usage: scripts/sweep-clocks.py RUN.json CLOCKS.csv [WINDOW_MS]

RUN.json is the suite's JSON (`--json`). A row timed interleaved with its baseline carries each
side's timed blocks (`time.blocks_unix_ms`, `baseline_paired.blocks_unix_ms`: start and end, UTC ms);
for those the script reports the clock and the capped share inside each side's own blocks, so a
ratio measured while one side ran capped and the other did not shows as such. Other rows fall back to
the WINDOW_MS before `time.ended_unix_ms`. CLOCKS.csv is `nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,
temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 100` (scripts/gpu-gemm.sh writes it
beside the sweep). For every row it prints the SM clock (min / median) and the share of samples with a
throttle reason in the WINDOW_MS (default 2000) before that moment. nvidia-smi's timestamp is local
time on the GPU machine; the device machines run in UTC.
"""
import csv
import datetime
import json
import sys


def samples(path):
    out = []
    with open(path) as f:
        for row in csv.reader(f, skipinitialspace=True):
            if not row or row[0].startswith("timestamp") or len(row) < 6:
                continue
            try:
                t = datetime.datetime.strptime(row[0], "%Y/%m/%d %H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc)
                clock = int(row[1].split()[0])
                power = float(row[3].split()[0])
            except ValueError:
                continue
            out.append((t.timestamp() * 1000.0, clock, power, int(row[5], 16)))
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    run = json.load(open(sys.argv[1]))
    clocks = samples(sys.argv[2])
    window = float(sys.argv[3]) if len(sys.argv) > 3 else 2000.0
    period = max(1.0, min((b[0] - a[0] for a, b in zip(clocks, clocks[1:])), default=100.0))

    def summary(spans):
        # A block may be shorter than the sampling period: take the samples within one period of it.
        inside = [c for c in clocks if any(a - period <= c[0] <= b + period for a, b in spans)]
        if not inside:
            return "-"
        sm = sorted(c[1] for c in inside)
        capped = sum(1 for c in inside if c[3] != 0) / len(inside)
        return f"{sm[0]}/{sm[len(sm) // 2]} MHz {100 * capped:3.0f}% capped"

    print(f"{'table':<12} {'step':<14} {'shape':<18} {'%base':>7}  this side's blocks (or window) | baseline's paired blocks")
    for table, rows in run.items():
        if not isinstance(rows, list):
            continue
        for r in rows:
            if not isinstance(r, dict) or not r.get("time") or "ended_unix_ms" not in r["time"]:
                continue
            own = r["time"].get("blocks_unix_ms") or [[r["time"]["ended_unix_ms"] - window, r["time"]["ended_unix_ms"]]]
            base = (r.get("baseline_paired") or {}).get("blocks_unix_ms") or []
            s = r.get("shape", {})
            shape = f"{s.get('m')}x{s.get('n')}x{s.get('k')}" if s else ""
            pct = r.get("pct_of_cublas")
            print(f"{table:<12} {r.get('step', ''):<14} {shape:<18} {'' if pct is None else f'{100 * pct:6.1f}%':>7}  "
                  f"{summary(own)} | {summary(base) if base else '-'}")


if __name__ == "__main__":
    main()
