#!/usr/bin/env python3
"""Times torch SDPA decode (one query row per sequence against a K/V cache): the peer of `kernel-lab decode`.

usage: python3 scripts/decode-torch-peer.py [--shapes 1x32x8x4096x128,...] [--dtype bf16|f16] [--reps 200]
                                            [--backends cudnn,flash,efficient] [--out peer.md]

A shape is BxHxKxLxD: batch, query heads, K/V heads, cache length, head dim (the Rust side's shapes). q is
(B, H, 1, D), k and v (B, K, L, D), contiguous, uniform in [-1, 1); SDPA is called with enable_gqa=True when
K < H and forced to one backend at a time with torch.nn.attention.sdpa_kernel. As on the Rust side, K and V
rotate over an even number of arrays (>= 512 MiB in all) so no call finds its cache in the L2, and each
shape's figures go with a 1 GiB device copy timed in alternating blocks with it: cache GB/s = the K and V
bytes over the median time, against the copy's rate (read + write bytes over its median). A backend that
raises gets its first line in the row. Needs torch and a CUDA GPU; exits 2 without them.
"""
import argparse
import statistics
import sys

from peer_common import sdpa_backends, write_lines

DEFAULT = "1x32x8x4096x128,1x32x8x32768x128,32x32x8x4096x128,64x32x8x8192x128,16x32x8x4096x64,16x16x8x8192x256,16x32x32x4096x96"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default=DEFAULT)
    ap.add_argument("--dtype", default="bf16")
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--backends", default="cudnn,flash,efficient")
    ap.add_argument("--out")
    a = ap.parse_args()
    try:
        import torch
        sdpa_kernel, backends = sdpa_backends()
    except ImportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("error: no CUDA GPU", file=sys.stderr)
        return 2
    dt = {"bf16": torch.bfloat16, "f16": torch.float16}[a.dtype]
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)

    def timed(fn, reps):
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
        for i, (s, e) in enumerate(ev):
            s.record()
            fn(i)
            e.record()
        torch.cuda.synchronize()
        return [s.elapsed_time(e) for s, e in ev]

    lines = [f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, {a.dtype}",
             "| shape BxHxKxLxD | backend | µs | cache GB/s | % of copy | note |", "|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    for spec in a.shapes.split(","):
        b, h, k, l, d = (int(x) for x in spec.split("x"))
        array_bytes = b * k * l * d * 2
        n = 2 * max(1, min(16, -(-(256 << 20) // array_bytes)))
        arrays = [torch.empty(b, k, l, d, dtype=dt, device="cuda").uniform_(-1, 1) for _ in range(n)]
        q = torch.empty(b, h, 1, d, dtype=dt, device="cuda").uniform_(-1, 1)
        for name in a.backends.split(","):
            note = ""
            try:
                with sdpa_kernel([backends[name]]):
                    def call(i):
                        return torch.nn.functional.scaled_dot_product_attention(q, arrays[2 * i % n], arrays[(2 * i + 1) % n], enable_gqa=k < h)
                    for i in range(10):
                        call(i)
                    ours, copy = [], []
                    for blk in range(4):
                        ours += timed(call, a.reps // 4)
                        copy += timed(lambda i: dst.copy_(src), 10)
                t, tc = statistics.median(ours), statistics.median(copy)
                gbps, copy_gbps = 2 * array_bytes / t / 1e6, 2 * (1 << 30) / tc / 1e6
                row = f"| {spec} | {name} | {t * 1e3:.1f} | {gbps:.0f} | {100 * gbps / copy_gbps:.0f}% | |"
            except Exception as e:  # a backend that does not take the shape
                msg = " ".join(str(e).split())[:120].replace("|", "/")
                row = f"| {spec} | {name} | - | - | - | {type(e).__name__}: {msg} |"
            print(row, flush=True)
            lines.append(row)
        del arrays
        torch.cuda.empty_cache()
    write_lines(a.out, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
