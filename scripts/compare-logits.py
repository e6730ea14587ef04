#!/usr/bin/env python3
"""Compares two `llm --logits-out` files (f32, [tokens][vocab]) — e.g. the runner at --tp 2 against the
one-GPU runner — and, given both runs' `--json` files, their generated tokens. Prints the relative L2 error
of the whole logit matrix, the largest per-row relative error, how many rows' argmax agree (a disagreement
where the reference's top two are within the other's error is reported as a near-tie), and the first
generated step where the tokens part. Exit code 1 when the relative L2 error exceeds --tol."""
import argparse, json, sys
import numpy as np

p = argparse.ArgumentParser()
p.add_argument("ref"); p.add_argument("other")
p.add_argument("--vocab", type=int, required=True)
p.add_argument("--tokens", nargs=2, metavar=("REF_JSON", "OTHER_JSON"))
p.add_argument("--tol", type=float, default=2e-2, help="largest relative L2 error accepted (bf16: ~1e-2)")
a = p.parse_args()
r = np.fromfile(a.ref, dtype="<f4").reshape(-1, a.vocab).astype(np.float64)
o = np.fromfile(a.other, dtype="<f4").reshape(-1, a.vocab).astype(np.float64)
if r.shape != o.shape:
    sys.exit(f"shapes differ: {r.shape} against {o.shape}")
if not (np.isfinite(r).all() and np.isfinite(o).all()):
    sys.exit("non-finite logits")
rel = np.linalg.norm(o - r) / np.linalg.norm(r)
rows = np.linalg.norm(o - r, axis=1) / np.linalg.norm(r, axis=1)
am_r, am_o = r.argmax(1), o.argmax(1)
srt = np.sort(r, axis=1)
gap = srt[:, -1] - srt[:, -2]
err = np.abs(o - r).max(1)
bad = np.nonzero(am_r != am_o)[0]
ties = [int(i) for i in bad if gap[i] <= 2 * err[i]]
print(f"logits: {r.shape[0]} rows x {a.vocab}; relative L2 {rel:.3e}; worst row {rows.max():.3e}; "
      f"argmax agree {r.shape[0] - len(bad)}/{r.shape[0]} (near-ties among the rest: {len(ties)}/{len(bad)})")
if a.tokens:
    t = [json.load(open(f))["tokens"] for f in a.tokens]
    flat = [[x for seq in tt for x in (seq if isinstance(seq, list) else [seq])] for tt in t]
    n = min(len(flat[0]), len(flat[1]))
    first = next((i for i in range(n) if flat[0][i] != flat[1][i]), None)
    print(f"generated tokens: {n} compared; " + ("the same" if first is None else f"first differ at step {first}"))
sys.exit(0 if rel <= a.tol else 1)
