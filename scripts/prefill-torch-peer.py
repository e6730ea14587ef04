#!/usr/bin/env python3
"""Times torch SDPA prefill (grouped heads, causal and not, and a batch of sequences of different lengths):
the peer of `kernel-lab prefill`.

usage: python3 scripts/prefill-torch-peer.py [--shapes 1x32x8x4096x128,...] [--dtype bf16|f16] [--reps 30] [--sustain-ms 0]
                                             [--backends cudnn,flash] [--varlen-lens 812,4093,...] [--out peer.md]

A shape is BxHxKxLxD: batch, query heads, K/V heads, sequence length, head dim (the Rust side's shapes). q is
(B, H, L, D), k and v (B, K, L, D), contiguous, uniform in [-1, 1); SDPA runs with enable_gqa=True when K < H,
forced to one backend at a time with torch.nn.attention.sdpa_kernel, each call timed with CUDA events, the
median of --reps after 3 warm-up calls (with --sustain-ms S > 0, warm-up and timed calls stretched to S / 2 and S ms:
the card at its power-limited clock, as the Rust side's interleaved timing runs). TFLOP/s counts 4·B·H·D per query-key pair the mask keeps (L² or
L(L+1)/2), as the Rust side does. --varlen-lens (the lengths `kernel-lab prefill` drew; its JSON's "varlen")
times the packed batch as torch users run it without a varlen API: one causal SDPA call per sequence, 32/8
heads, D = 128, the whole loop as one time. A backend that raises gets its first line in the row. Needs torch
and a CUDA GPU; exits 2 without them.
"""
import argparse
import sys

from peer_common import import_torch, median_ms, sdpa_backends, write_lines

DEFAULT = "1x32x8x4096x128,1x32x8x8192x128,4x28x4x2048x128,2x16x8x4096x96,2x32x8x4096x64,2x16x8x4096x256"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default=DEFAULT)
    ap.add_argument("--dtype", default="bf16")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--sustain-ms", type=float, default=0.0)
    ap.add_argument("--backends", default="cudnn,flash")
    ap.add_argument("--varlen-lens", default="")
    ap.add_argument("--out")
    a = ap.parse_args()
    got = import_torch()
    if got is None:
        return 2
    torch = got[0]
    sdpa_kernel, backends = sdpa_backends()
    dt = {"bf16": torch.bfloat16, "f16": torch.float16}[a.dtype]
    sdpa = torch.nn.functional.scaled_dot_product_attention

    lines = [f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, {a.dtype}",
             "| shape BxHxKxLxD | mask | backend | µs | TFLOP/s | note |", "|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)

    def row(spec, mask, name, fn, flops):
        try:
            with sdpa_kernel([backends[name]]):
                t = median_ms(torch, fn, a.reps, 3, a.sustain_ms)
            r = f"| {spec} | {mask} | {name} | {t * 1e3:.1f} | {flops / t / 1e9:.0f} | |"
        except Exception as e:  # a backend that does not take the shape
            msg = " ".join(str(e).split())[:120].replace("|", "/")
            r = f"| {spec} | {mask} | {name} | - | - | {type(e).__name__}: {msg} |"
        print(r, flush=True)
        lines.append(r)

    for spec in a.shapes.split(","):
        b, h, k, l, d = (int(x) for x in spec.split("x"))
        q = torch.empty(b, h, l, d, dtype=dt, device="cuda").uniform_(-1, 1)
        kk = torch.empty(b, k, l, d, dtype=dt, device="cuda").uniform_(-1, 1)
        vv = torch.empty(b, k, l, d, dtype=dt, device="cuda").uniform_(-1, 1)
        for causal in (False, True):
            pairs = l * (l + 1) / 2 if causal else l * l
            flops = 4 * b * h * d * pairs
            for name in a.backends.split(","):
                row(spec, "causal" if causal else "none", name, lambda: sdpa(q, kk, vv, is_causal=causal, enable_gqa=k < h), flops)
    if a.varlen_lens:
        lens = [int(x) for x in a.varlen_lens.split(",")]
        h, k, d = 32, 8, 128
        qs = [torch.empty(1, h, n, d, dtype=dt, device="cuda").uniform_(-1, 1) for n in lens]
        ks = [torch.empty(1, k, n, d, dtype=dt, device="cuda").uniform_(-1, 1) for n in lens]
        vs = [torch.empty(1, k, n, d, dtype=dt, device="cuda").uniform_(-1, 1) for n in lens]
        flops = sum(4 * h * d * n * (n + 1) / 2 for n in lens)

        def loop():
            for q, kk, vv in zip(qs, ks, vs):
                sdpa(q, kk, vv, is_causal=True, enable_gqa=True)
        for name in a.backends.split(","):
            row(f"{len(lens)} seqs {min(lens)}..{max(lens)} 32/8 D128", "causal", name, loop, flops)
    write_lines(a.out, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
