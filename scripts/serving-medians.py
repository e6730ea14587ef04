#!/usr/bin/env python3
"""The runner's serving timings (scripts/gpu-s102.sh): `serving-medians.py DIR` reads DIR's `llm --json` reports,
one file a process, and prints the medians with each process's value:
  chunk{0,512,1024}-*.json  prefill of one prompt whole and in chunks, and the chunked / whole ratios;
  contig32-*, paged32-*     batch-32 decode on the contiguous and the paged cache, and paged / contiguous;
  serve-*, rate8-*          continuous batching (tokens a second, time to first token, time per token);
  servesep-*, rate8sep-*    the same with `--separate` (session 104: mixed steps against separate), and mixed / separate;
  pool160-reserve, -preempt  one process each: a 160-page pool reserved at the longest against preempted
  static16-*                one static batch: its tokens a second counted as batch × max_new over the prefill
                            and max_new - 1 decode steps, the yardstick for serve-*."""
import glob, json, statistics as st, sys

d = sys.argv[1]


def load(tag):
    return [json.load(open(f)) for f in sorted(glob.glob(f"{d}/{tag}-*.json"))]


def med(name, vals, fmt="{:.2f}"):
    if not vals:
        return None
    m = st.median(vals)
    print(f"{name}: median {fmt.format(m)} of {len(vals)} ({', '.join(fmt.format(v) for v in vals)})")
    return m


whole = med("prefill 2048 tokens whole, ms", [x["prefill_ms"] for x in load("chunk0")])
for ch in (512, 1024):
    m = med(f"prefill 2048 tokens in chunks of {ch}, ms", [x["prefill_ms"] for x in load(f"chunk{ch}")])
    if m and whole:
        print(f"  chunks of {ch} / whole: {m / whole:.3f}")
c = med("batch-32 decode, contiguous cache, ms/step", [x["decode_ms_per_step"] for x in load("contig32")], "{:.3f}")
p = med("batch-32 decode, paged cache (64-token pages), ms/step", [x["decode_ms_per_step"] for x in load("paged32")], "{:.3f}")
if c and p:
    print(f"  paged / contiguous: {p / c:.3f}")
med("batch-32 prefill 2048 tokens, contiguous, ms", [x["prefill_ms"] for x in load("contig32")], "{:.1f}")
med("batch-32 prefill 2048 tokens, paged, ms", [x["prefill_ms"] for x in load("paged32")], "{:.1f}")


def served(tag, what):
    xs = load(tag)
    if not xs:
        return None
    tps = med(f"{what}: tokens/s", [x["generated"] / (x["ms"] / 1e3) for x in xs], "{:.0f}")
    med(f"{what}: time to first token, median ms", [st.median(x["time_to_first_ms"]) for x in xs], "{:.1f}")
    med(f"{what}: time to first token, p90 ms", [sorted(x["time_to_first_ms"])[round((len(x["time_to_first_ms"]) - 1) * 0.9)] for x in xs], "{:.1f}")
    med(f"{what}: per token after the first, median ms", [st.median(v for v in x["per_token_ms"] if v is not None) for x in xs], "{:.2f}")
    med(f"{what}: decode steps", [x["decode_steps"] for x in xs], "{:.0f}")
    if "mixed_steps" in xs[0]:
        med(f"{what}: mixed steps", [x["mixed_steps"] for x in xs], "{:.0f}")
    return tps


s = served("serve", "64 requests at once, 16 slots")
sep = served("servesep", "64 requests at once, 16 slots, separate admission steps")
if s and sep:
    print(f"  mixed / separate tokens a second: {s / sep:.3f}")
served("rate8", "64 requests arriving 8 a second, 16 slots")
served("rate8sep", "64 requests arriving 8 a second, 16 slots, separate admission steps")
st16 = load("static16")
if st16:
    t = med("static batch 16 × (1024 + 128): tokens/s",
            [sum(map(len, x["tokens"])) / ((x["prefill_ms"] + (len(x["tokens"][0]) - 1) * x["decode_ms_per_step"]) / 1e3) for x in st16], "{:.0f}")
    if s and t:
        print(f"  continuous (64 requests at once) / static batch tokens a second: {s / t:.3f}")
    if sep and t:
        print(f"  continuous, separate admission steps / static batch tokens a second: {sep / t:.3f}")
# pool160-{reserve,preempt}.json: one process each, the same 64 requests in a 160-page pool.
for adm in ("reserve", "preempt", "preempt-separate"):
    for x in [json.load(open(f)) for f in glob.glob(f"{d}/pool160-{adm}.json")]:
        print(f"160-page pool, {adm}: {x['generated'] / (x['ms'] / 1e3):.0f} tokens/s, {x['decode_steps']} decode steps, up to {x['widest']} a step, "
              f"{x.get('mixed_steps', 0)} mixed steps, {x.get('preemptions', 0)} preemptions, time to first token median {st.median(x['time_to_first_ms']):.1f} ms")
