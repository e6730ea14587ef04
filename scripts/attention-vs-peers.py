#!/usr/bin/env python3
"""Our attention steps against torch's SDPA peers, timed in one device call in the same regime.

usage: scripts/attention-vs-peers.py OURS.json TORCH.md [--title TEXT] [--mma-sync]

OURS.json: `kernel-lab --family attention --attn-solo --json` (with --steps naming a11 and the Hopper
steps); TORCH.md: scripts/attention-torch-peer.py's output with the flash and cuDNN backends. Both must
time alike: short bursts from an idle card (`--attn-idle-ms N --reps 20` / `--idle-ms N`) or sustained
(`--reps 1500 --warmup 1000` / `--sustain-ms 2000`). Prints one Markdown row per shape, causal flag and
type: our medians (ms), the peers', a11 / FA2 and the best Hopper step (a12 or a15) / cuDNN as speed
ratios (peer time over ours: > 1 means ours is faster).

With --mma-sync (OURS.json from `--dtype f16,bf16 --steps` naming a16 and a17, TORCH.md with the flash
backend): the `mma.sync` steps a16 and a17 against FA2 instead, and the step the library runs off Hopper
(`kernel_lab::attention::default_flash`: a17 with the causal mask, a16 without) / FA2.
"""
import json
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    ours = json.load(open(sys.argv[1]))
    title = sys.argv[sys.argv.index("--title") + 1] if "--title" in sys.argv else ""
    t = {}
    for r in ours["attention"]:
        if r.get("time") and not r.get("error"):
            s = r["shape"]
            key = (f"{s['batch']}x{s['heads']}x{s['len']}x{s['head_dim']}", int(s["causal"]), r["elem"].lower())
            t.setdefault(key, {})[r["step"].split("-")[0]] = r["time"]["median_ms"]
    peers = {}
    for line in open(sys.argv[2]):
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(c) >= 6 and c[0][:1].isdigit() and c[4] not in ("-", ""):
            peers.setdefault((c[0], int(c[1]), c[2]), {})[c[3]] = float(c[4])
    if title:
        print(f"{title}\n")
    if "--mma-sync" in sys.argv:
        mma_sync_table(t, peers)
        return
    print("| B×H×L×D | causal | type | a11 ms | FA2 ms | **a11 / FA2** | a12 ms | a15 ms | cuDNN ms | **best Hopper / cuDNN** |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for key in sorted(t, key=lambda k: (int(k[0].split("x")[3]), int(k[0].split("x")[2]), k[1], k[2])):
        o, p = t[key], peers.get(key, {})
        fa2, cud = p.get("FLASH_ATTENTION"), p.get("CUDNN_ATTENTION")
        hop = min((o[s], s) for s in ("a12", "a15") if s in o) if any(s in o for s in ("a12", "a15")) else None
        f = lambda x: f"{x:.3f}" if x is not None else "-"
        r1 = f"{fa2 / o['a11']:.3f}" if fa2 and "a11" in o else "-"
        r2 = f"{cud / hop[0]:.3f} ({hop[1]})" if cud and hop else "-"
        print(f"| {key[0]} | {key[1]} | {key[2]} | {f(o.get('a11'))} | {f(fa2)} | {r1} | {f(o.get('a12'))} | {f(o.get('a15'))} | {f(cud)} | {r2} |")


def mma_sync_table(t, peers):
    """a16 and a17 against FA2, and the library's step off Hopper (a17 causal, a16 not) / FA2."""
    print("| B×H×L×D | causal | type | a16 ms | a17 ms | FA2 ms | a16 / FA2 | a17 / FA2 | library's step / FA2 |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for key in sorted(t):
        o, fa2 = t[key], peers.get(key, {}).get("FLASH_ATTENTION")
        if fa2 is None or "a16" not in o or "a17" not in o:
            print(f"| {key[0]} | {key[1]} | {key[2]} | missing: {sorted(o)} / FA2 {fa2} |")
            continue
        lib = o["a17"] if key[1] == 1 else o["a16"]
        print(f"| {key[0]} | {key[1]} | {key[2]} | {o['a16']:.3f} | {o['a17']:.3f} | {fa2:.3f} | {fa2 / o['a16']:.3f} | {fa2 / o['a17']:.3f} | **{fa2 / lib:.3f}** |")


if __name__ == "__main__":
    main()
