#!/usr/bin/env python3
"""Which measurements of a `kernel-lab --json` run were taken while the GPU was power-capped.

Usage: scripts/sweep-clocks.py RUN.json CLOCKS.csv [WINDOW_MS]

RUN.json is the suite's JSON (`--json`); each timed row's `time.ended_unix_ms` (and
`baseline_paired.ended_unix_ms` for the interleaved baseline) says when its repetitions were
summarised. CLOCKS.csv is `nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,
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
    print(f"{'table':<12} {'step':<14} {'shape':<18} {'%base':>7} {'clock min/med':>14} {'capped':>7}")
    for table, rows in run.items():
        if not isinstance(rows, list):
            continue
        for r in rows:
            if not isinstance(r, dict) or not r.get("time") or "ended_unix_ms" not in r["time"]:
                continue
            end = r["time"]["ended_unix_ms"]
            start = min(end, (r.get("baseline_paired") or {}).get("ended_unix_ms", end)) - window
            inside = [c for c in clocks if start <= c[0] <= end]
            if not inside:
                continue
            sm = sorted(c[1] for c in inside)
            capped = sum(1 for c in inside if c[3] != 0) / len(inside)
            s = r.get("shape", {})
            shape = f"{s.get('m')}x{s.get('n')}x{s.get('k')}" if s else ""
            pct = r.get("pct_of_cublas")
            print(f"{table:<12} {r.get('step', ''):<14} {shape:<18} {'' if pct is None else f'{100 * pct:6.1f}%':>7} "
                  f"{sm[0]:>6}/{sm[len(sm) // 2]:<6} {100 * capped:6.0f}%")


if __name__ == "__main__":
    main()
