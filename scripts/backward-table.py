#!/usr/bin/env python3
"""The backward table of a results folder: medians over processes of the Hopper steps' times (b3, b4) from
`kernel-lab backward --json` files and of torch SDPA's cuDNN and flash (FA2) backward from
scripts/backward-torch-peer.py's tables, with TFLOP/s (2.5x the forward's FLOPs) and the ratios.

  scripts/backward-table.py --ours F.json[.gz] ... --peers P.md ...
"""
import argparse, gzip, json, re, statistics as st

ap = argparse.ArgumentParser()
ap.add_argument("--ours", nargs="+", required=True)
ap.add_argument("--peers", nargs="+", required=True)
a = ap.parse_args()
ours, peer, shapes = {}, {}, []
for f in a.ours:
    for r in json.load((gzip.open if f.endswith(".gz") else open)(f, "rt"))["rows"]:
        ours.setdefault((r["shape"], r["config"]), []).append(r["us"])
        if r["shape"] not in shapes:
            shapes.append(r["shape"])
for f in a.peers:
    for line in open(f):
        c = [x.strip() for x in line.split("|")[1:-1]]
        if len(c) >= 4 and re.match(r"\d", c[0]) and re.match(r"\d", c[3]):
            peer.setdefault((c[0], c[1], c[2]), []).append(float(c[3]))
print("| shape BxHxKxLxD | mask | b3 µs (TFLOP/s) | b4 µs (TFLOP/s) | b4 / b3 time | cuDNN µs | FA2 µs | b3 / cuDNN speed | b4 / cuDNN speed | b3 / FA2 | b4 / FA2 |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for shape in shapes:
    for mask in ["none", "causal"]:
        sfx = " causal" if mask == "causal" else ""
        try:
            b3, b4 = st.median(ours[(shape, "b3 wgmma" + sfx)]), st.median(ours[(shape, "b4 wgmma atomic" + sfx)])
            cu, fl = st.median(peer[(shape, mask, "cudnn")]), st.median(peer[(shape, mask, "flash")])
        except KeyError as e:
            print(f"| {shape} | {mask} | missing {e} |")
            continue
        b, h, _k, l, d = map(int, shape.split("x"))
        flops = 2.5 * 4 * b * h * d * l * l * (0.5 if mask == "causal" else 1)
        tf = lambda us: flops / (us * 1e-6) / 1e12
        print(f"| {shape} | {mask} | {b3:.0f} ({tf(b3):.0f}) | {b4:.0f} ({tf(b4):.0f}) | {b4 / b3:.2f} | {cu:.0f} | {fl:.0f} | {cu / b3:.2f}× | {cu / b4:.2f}× | {fl / b3:.2f}× | {fl / b4:.2f}× |")
