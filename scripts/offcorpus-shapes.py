#!/usr/bin/env python3
"""GEMM shapes outside ../shared/shapes/models.tsv, to check the entry point's choice where nothing was
fitted: linear layers of published models that file does not list (dimensions from their config.json),
tensor-parallel degrees 1, 2, 4 and 8, and token counts drawn log-uniformly from 1..16384 (not powers of
two). Same output form as shapes.py gemm: MxNxK<TAB>model<TAB>layer<TAB>tp.

usage: offcorpus-shapes.py [--n 40] [--seed 1]
"""
import argparse, math, random

# name: hidden, intermediate, heads, kv_heads, head_dim, vocab
MODELS = {
    'qwen2-7b': (3584, 18944, 28, 4, 128, 152064),
    'qwen2-72b': (8192, 29568, 64, 8, 128, 152064),
    'qwen2.5-14b': (5120, 13824, 40, 8, 128, 152064),
    'gemma-2-27b': (4608, 36864, 32, 16, 128, 256000),
    'yi-34b': (7168, 20480, 56, 8, 128, 64000),
    'falcon-7b': (4544, 18176, 71, 1, 64, 65024),
    'phi-2': (2560, 10240, 32, 32, 80, 51200),
    'gpt-j-6b': (4096, 16384, 16, 16, 256, 50400),
}

def layers(c, tp):
    h, inter, heads, kv, d, vocab = c
    for name, n, k, split_n in [('qkv', (heads + 2 * kv) * d, h, True), ('o', h, heads * d, False),
                                ('gate_up', 2 * inter, h, True), ('down', h, inter, False), ('lm_head', vocab, h, True)]:
        if split_n and n % tp == 0: yield name, n // tp, k
        elif not split_n and k % tp == 0: yield name, n, k // tp

ap = argparse.ArgumentParser(); ap.add_argument('--n', type=int, default=40); ap.add_argument('--seed', type=int, default=1)
a = ap.parse_args(); r = random.Random(a.seed)
rows = [(name, tp, l) for name, c in MODELS.items() for tp in (1, 2, 4, 8) for l in layers(c, tp)]
for _ in range(a.n):
    name, tp, (layer, n, k) = r.choice(rows)
    m = max(1, int(round(math.exp(r.uniform(0, math.log(16384))))))
    print(f"{m}x{n}x{k}\t{name}\t{layer}\t{tp}")
