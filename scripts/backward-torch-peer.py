#!/usr/bin/env python3
"""Times torch SDPA's backward (cuDNN, flash and efficient backends; the gradients are checked by
backward-torch-check.py):
the peer of `kernel-lab backward`.

usage: python3 scripts/backward-torch-peer.py [--shapes 2x16x16x4096x128,...] [--dtype bf16|f16] [--reps 20]
                                              [--backends cudnn,flash,efficient] [--out peer.md]

A shape is BxHxKxLxD (the Rust side's): q (B, H, L, D), k and v (B, K, L, D), uniform in [-1, 1), SDPA with
enable_gqa=True when K < H, forced to one backend at a time with torch.nn.attention.sdpa_kernel. The forward
runs once; then torch.autograd.grad(out, (q, k, v), dO, retain_graph=True) — the backward alone, no gradient
accumulation — is timed with CUDA events, the median of --reps after 3 warm-up calls. TFLOP/s count 2.5× the
forward's 4·B·H·D per query-key pair the mask keeps (L² or L(L+1)/2), as the Rust side does. A backend that
raises gets its first line in the row. Needs torch and a CUDA GPU; exits 2 without them.
"""
import argparse
import sys

from peer_common import import_torch, median_ms, sdpa_backends, write_lines

DEFAULT = "2x16x16x4096x128,1x16x16x8192x128,1x32x8x8192x128,2x16x16x4096x64"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default=DEFAULT)
    ap.add_argument("--dtype", default="bf16")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--backends", default="cudnn,flash,efficient")
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
             "| shape BxHxKxLxD | mask | backend | backward µs | TFLOP/s | note |", "|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    for spec in a.shapes.split(","):
        b, h, k, l, d = (int(x) for x in spec.split("x"))
        q = torch.empty(b, h, l, d, dtype=dt, device="cuda").uniform_(-1, 1).requires_grad_()
        kk = torch.empty(b, k, l, d, dtype=dt, device="cuda").uniform_(-1, 1).requires_grad_()
        vv = torch.empty(b, k, l, d, dtype=dt, device="cuda").uniform_(-1, 1).requires_grad_()
        d_o = torch.empty(b, h, l, d, dtype=dt, device="cuda").uniform_(-1, 1)
        for causal in (False, True):
            pairs = l * (l + 1) / 2 if causal else l * l
            flops = 2.5 * 4 * b * h * d * pairs
            for name in a.backends.split(","):
                try:
                    with sdpa_kernel([backends[name]]):
                        out = sdpa(q, kk, vv, is_causal=causal, enable_gqa=k < h)
                        t = median_ms(torch, lambda: torch.autograd.grad(out, (q, kk, vv), d_o, retain_graph=True), a.reps)
                    del out
                    r = f"| {spec} | {'causal' if causal else 'none'} | {name} | {t * 1e3:.1f} | {flops / t / 1e9:.0f} | |"
                except Exception as e:  # a backend that does not take the shape
                    msg = " ".join(str(e).split())[:120].replace("|", "/")
                    r = f"| {spec} | {'causal' if causal else 'none'} | {name} | - | - | {type(e).__name__}: {msg} |"
                print(r, flush=True)
                lines.append(r)
        del q, kk, vv, d_o
        torch.cuda.empty_cache()
    write_lines(a.out, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
