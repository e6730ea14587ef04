#!/usr/bin/env python3
"""Checks the lab's attention-backward gradients at large shapes against torch (issue 50).

usage: python3 scripts/backward-torch-check.py DIR [--out check.md]

DIR is what `kernel-lab backward --dump DIR` wrote: one folder per shape and mask holding meta.json and the
raw little-endian tensors q, k, v, do (inputs) and dq, dk, dv (the default plan's gradients: b3 on Hopper),
token-major [B][L][heads][D]. For each folder the reference is torch's SDPA backward in fp32 (the math
backend, enable_gqa for grouped heads) on the same inputs widened to fp32; torch's own bf16/f16 backward
(cuDNN, flash) on the same inputs is checked against that reference too, as the yardstick of a trusted
library's rounding. A row fails when the lab's relative L2 error exceeds 3e-2 (bf16; 8e-3 f16: the GPU
tests' tolerance) or twice the worst torch backend's + 1e-3. Exits 1 if any row fails, 2 without torch/GPU.
"""
import argparse
import json
import os
import sys

from peer_common import import_torch, sdpa_backends, write_lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--out")
    a = ap.parse_args()
    got = import_torch()
    if got is None:
        return 2
    torch = got[0]
    sdpa_kernel, backends = sdpa_backends()
    from torch.nn.attention import SDPBackend
    sdpa = torch.nn.functional.scaled_dot_product_attention
    lines = [f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}",
             "| shape BxHxKxLxD | mask | kernel | dQ rel L2 | dK rel L2 | dV rel L2 | cuDNN (dQ, dK, dV) | flash (dQ, dK, dV) | verdict |",
             "|---|---|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    failed = 0
    for name in sorted(os.listdir(a.dir)):
        path = os.path.join(a.dir, name)
        meta_path = os.path.join(path, "meta.json")
        if not os.path.exists(meta_path):
            continue
        m = json.load(open(meta_path))
        dt = {"bf16": torch.bfloat16, "f16": torch.float16}[m["dtype"]]
        b, h, k, l, d = m["b"], m["h"], m["k"], m["l"], m["d"]

        def load(fname, heads):
            raw = open(os.path.join(path, fname), "rb").read()
            x = torch.frombuffer(bytearray(raw), dtype=torch.int16).view(dt).reshape(b, l, heads, d)
            return x.permute(0, 2, 1, 3).contiguous().cuda()  # (B, heads, L, D)

        q, kk, vv, d_o = load("q", h), load("k", k), load("v", k), load("do", h)
        ours = [load("dq", h), load("dk", k), load("dv", k)]

        def grads(x_q, x_k, x_v, x_do, backend):
            x_q, x_k, x_v = (t.detach().requires_grad_() for t in (x_q, x_k, x_v))
            with sdpa_kernel([backend]):
                out = sdpa(x_q, x_k, x_v, is_causal=m["causal"], scale=m["scale"], enable_gqa=k < h)
                return torch.autograd.grad(out, (x_q, x_k, x_v), x_do)

        ref = grads(q.float(), kk.float(), vv.float(), d_o.float(), SDPBackend.MATH)

        def rel(x, r):
            x, r = x.double(), r.double()
            return (torch.linalg.vector_norm(x - r) / torch.linalg.vector_norm(r)).item()

        mine = [rel(x, r) for x, r in zip(ours, ref)]
        peers = {}
        for bname in ("cudnn", "flash"):
            try:
                peers[bname] = [rel(x, r) for x, r in zip(grads(q, kk, vv, d_o, backends[bname]), ref)]
            except Exception as e:  # a backend that does not take the shape
                peers[bname] = None
                print(f"{bname}: {type(e).__name__}: {' '.join(str(e).split())[:100]}", flush=True)
        worst_peer = max((max(v) for v in peers.values() if v), default=0.0)
        tol = 3e-2 if m["dtype"] == "bf16" else 8e-3
        ok = max(mine) <= tol and max(mine) <= 2 * worst_peer + 1e-3
        failed += not ok
        fmt = lambda v: "-" if v is None else ", ".join(f"{x:.2e}" for x in v)
        r = (f"| {b}x{h}x{k}x{l}x{d} | {'causal' if m['causal'] else 'none'} | {m['kernel']} | {mine[0]:.2e} | {mine[1]:.2e} | {mine[2]:.2e} | "
             f"{fmt(peers.get('cudnn'))} | {fmt(peers.get('flash'))} | {'ok' if ok else 'FAIL'} |")
        print(r, flush=True)
        lines.append(r)
        del q, kk, vv, d_o, ours, ref
        torch.cuda.empty_cache()
    write_lines(a.out, lines)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
