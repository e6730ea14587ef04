#!/usr/bin/env python3
"""Times Hugging Face transformers on a checkpoint (the peer of `llm --prompt-len`): decode ms per step with
`generate` eager and with a static cache, which transformers compiles itself (torch.compile, "reduce-overhead":
CUDA graphs; the gpt-fast recipe), at the
given batches, the difference of two generate lengths over their token difference (so prefill cancels);
prefill of --prefill-len tokens as one eager forward; and the weight-read floor: the checkpoint's bytes over
the same run's 1 GiB device-copy rate.

usage: python3 scripts/llm-hf-bench.py --model DIR [--batches 1,32] [--prefill-batches 1,8] [--prefill-len 2048]
                                       [--prompt-len 128] [--no-compile] [--compiled-only] [--out report.md]
Exits 2 without torch/transformers/GPU.
"""
import argparse
import os
import sys

from peer_common import import_torch, median_ms, write_lines
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--batches", default="1,32")
    ap.add_argument("--prefill-batches", default="1,8")
    ap.add_argument("--prefill-len", type=int, default=2048)
    ap.add_argument("--prompt-len", type=int, default=128)
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--compiled-only", action="store_true")
    ap.add_argument("--out")
    a = ap.parse_args()
    got = import_torch(transformers=True)
    if got is None:
        return 2
    torch, transformers = got
    model = transformers.AutoModelForCausalLM.from_pretrained(a.model, dtype=torch.bfloat16).cuda().eval()
    vocab = model.config.vocab_size
    weight_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)

    copy_gbps = 2 * (1 << 30) / median_ms(torch, lambda: dst.copy_(src), 20) / 1e6
    floor_ms = weight_bytes / (copy_gbps * 1e6)
    lines = [f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, transformers {transformers.__version__}",
             f"weights {weight_bytes / 1e9:.2f} GB, device copy {copy_gbps:.0f} GB/s: floor {floor_ms:.2f} ms per decode step",
             "| what | batch | ms | note |", "|---|---|---|---|"]
    print("\n".join(lines), flush=True)

    def row(what, b, ms, note=""):
        r = f"| {what} | {b} | {ms:.2f} | {note} |"
        print(r, flush=True)
        lines.append(r)

    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for b in [int(x) for x in a.prefill_batches.split(",") if x and not a.compiled_only]:
            ids = torch.randint(1, vocab, (b, a.prefill_len), generator=g).cuda()
            model(ids[:, :16])
            row(f"HF eager prefill {a.prefill_len} tokens", b, median_ms(torch, lambda: model(ids, use_cache=False), 5, warmup=1))
            del ids
            torch.cuda.empty_cache()

        def static_cache(b, length):
            # One cache of a fixed length for every call (transformers 5: batch size and dtype from the first
            # update; older: given here), so the compiled decoding step keeps its shapes.
            try:
                return transformers.StaticCache(config=model.config, max_cache_len=length)
            except TypeError:
                return transformers.StaticCache(config=model.config, max_batch_size=b, max_cache_len=length, device="cuda", dtype=torch.bfloat16)

        def per_step(b, n1=8, n2=40, compiled=False):
            ids = torch.randint(1, vocab, (b, a.prompt_len), generator=g).cuda()
            cache = static_cache(b, a.prompt_len + n2 + 8) if compiled else None

            def gen(n):
                if cache is None:
                    return model.generate(ids, max_new_tokens=n, min_new_tokens=n, do_sample=False)
                cache.reset()
                return model.generate(ids, max_new_tokens=n, min_new_tokens=n, do_sample=False, past_key_values=cache)
            gen(n2)
            t = []
            for n in (n1, n2, n1, n2):
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                gen(n)
                torch.cuda.synchronize()
                t.append(time.perf_counter() - t0)
            return ((t[1] - t[0]) + (t[3] - t[2])) / 2 / (n2 - n1) * 1e3

        for b in [int(x) for x in a.batches.split(",") if x and not a.compiled_only]:
            row("HF eager generate, per step", b, per_step(b))
        if not a.no_compile:
            # A static cache makes `generate` compile the decoding forward itself (its CompileConfig:
            # fullgraph, mode "reduce-overhead" = CUDA graphs); compiling `model.forward` on top of that
            # fails (a CUDA graph's output read after the next replay overwrote it). One cache of a fixed
            # length per batch, reset between calls: a cache sized per call recompiled every call.
            for b in [int(x) for x in a.batches.split(",") if x]:
                t0 = time.perf_counter()
                ms = per_step(b, compiled=True)
                row("HF static cache + torch.compile reduce-overhead, per step", b, ms, f"incl. warm-up/compile {time.perf_counter() - t0:.0f} s")
    write_lines(a.out, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
