#!/usr/bin/env python3
"""The `mma.sync` attention steps a16 and a17 against torch's FA2 (flash backend), one Markdown row per
shape, causal flag and type, from one device call's two files:

usage: scripts/attention-a16-a17-vs-fa2.py OURS.json TORCH.md

OURS.json: `kernel-lab --family attention --dtype f16,bf16 --attn-solo --steps <a16 and a17 labels> --json`;
TORCH.md: `scripts/attention-torch-peer.py --backends flash` in the same regime (both sustained:
`--reps 1500 --warmup 1000` / `--sustain-ms 2000`; or both bursts from idle: `--attn-idle-ms N --reps 20`
/ `--idle-ms N`). Ratios are FA2's median over ours (> 1: ours faster); the last column is the step the
library runs off Hopper (`kernel_lab::attention::default_flash`): a17 with the causal mask, a16 without.
"""
import json
import re
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    ours = {}
    for r in json.load(open(sys.argv[1]))["attention"]:
        if r["time"] is None or not r["step"].startswith(("a16", "a17")):
            continue
        s = r["shape"]
        key = (f"{s['batch']}x{s['heads']}x{s['len']}x{s['head_dim']}", int(s["causal"]), r["elem"].lower())
        ours.setdefault(key, {})[r["step"].split("-")[0]] = r["time"]["median_ms"]
    peer = {}
    for line in open(sys.argv[2]):
        m = re.match(r"\| (\S+) \| (\d) \| (\w+) \| FLASH_ATTENTION \| ([\d.]+) \|", line)
        if m:
            peer[(m.group(1), int(m.group(2)), m.group(3))] = float(m.group(4))
    print("| B×H×L×D | causal | type | a16 ms | a17 ms | FA2 ms | a16 / FA2 | a17 / FA2 | library's step / FA2 |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for key in sorted(ours):
        o, fa2 = ours[key], peer.get(key)
        if fa2 is None or "a16" not in o or "a17" not in o:
            print(f"| {key[0]} | {key[1]} | {key[2]} | missing: {sorted(o)} / FA2 {fa2} |")
            continue
        lib = o["a17"] if key[1] == 1 else o["a16"]
        print(f"| {key[0]} | {key[1]} | {key[2]} | {o['a16']:.3f} | {o['a17']:.3f} | {fa2:.3f} | {fa2 / o['a16']:.3f} | {fa2 / o['a17']:.3f} | **{fa2 / lib:.3f}** |")


if __name__ == "__main__":
    main()
