#!/usr/bin/env python3
"""Checks the `llm` runner's features that scripts/llm-hf-check.py does not: several prompts of different lengths
as one batch, stopping at the config's end-of-sequence token, and text prompts through tokenizer.json.

usage: python3 scripts/llm-features-check.py --llm PATH [--model tiny-llama] [--work /tmp/llm-check] [--out FILE]

On a random-weight checkpoint made as llm-hf-check.py makes it (transformers, bf16):
1. batch: three prompts of 37, 20 and 5 tokens in one run (`--prompt-ids "a;b;c"`, 16 new tokens, --ignore-eos);
   each sequence's tokens against HF's greedy generate on that prompt alone, and against our runner on it alone;
   a first mismatch is reported with HF's top-two margin there (a near-tie is < 2% of the largest |logit|);
2. eos: a copy of the checkpoint whose config's eos_token_id is a token our greedy run produces first at step k ≥ 5;
   the runner without --ignore-eos must stop right after producing it (k + 1 tokens);
3. text: a byte-level BPE tokenizer trained here on a few sentences (tokenizers), saved as tokenizer.json;
   `--prompt TEXT` must encode to the ids tokenizers gives, and generate what `--prompt-ids` of those ids does.
Prints a table; exits 1 if a check fails, 2 without torch/transformers/GPU.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_common import import_torch, write_lines  # noqa: E402

llm_hf_check = __import__("llm-hf-check")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--llm", required=True)
    ap.add_argument("--model", default="tiny-llama")
    ap.add_argument("--work", default="/tmp/llm-check")
    ap.add_argument("--out")
    a = ap.parse_args()
    got = import_torch(transformers=True)
    if got is None:
        return 2
    torch, transformers = got
    os.makedirs(a.work, exist_ok=True)
    path = llm_hf_check.make(a.model, a.work, torch, transformers)
    model = transformers.AutoModelForCausalLM.from_pretrained(path, dtype=torch.bfloat16).cuda().eval()
    vocab = model.config.vocab_size
    lines = [f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, transformers {transformers.__version__}, model {a.model}",
             "| check | result | detail |", "|---|---|---|"]
    failed = False

    def row(check, ok, detail):
        nonlocal failed
        failed |= not ok
        r = f"| {check} | {'ok' if ok else 'FAILED'} | {detail} |"
        print(r, flush=True)
        lines.append(r)

    def hf_greedy(prompt, n):
        ids = torch.tensor([prompt], device="cuda")
        with torch.no_grad():
            return model.generate(ids, max_new_tokens=n, do_sample=False, min_new_tokens=n)[0, len(prompt):].tolist()

    def margin_note(prompt, gen, first):
        with torch.no_grad():
            last = model(torch.tensor([prompt + gen[:first]], device="cuda")).logits[0, -1].float()
        top = torch.topk(last, 2).values
        m, scale = (top[0] - top[1]).item(), last.abs().max().item()
        return m < 2e-2 * scale, f"HF margin {m:.3g} ({m / max(scale, 1e-9):.2%} of max |logit|)"

    def ours(args, model_path=path):
        j = os.path.join(a.work, "features.json")
        r = subprocess.run([a.llm, "--model", model_path, "--json", j] + args, capture_output=True, text=True)
        if r.returncode != 0:
            return None, (r.stderr or r.stdout)
        return json.load(open(j))["tokens"], r.stdout

    # 1. Several prompts of different lengths as one batch.
    g = torch.Generator().manual_seed(3)
    prompts = [torch.randint(1, vocab, (n,), generator=g).tolist() for n in (37, 20, 5)]
    batch, out = ours(["--prompt-ids", ";".join(",".join(map(str, p)) for p in prompts), "--max-new", "16", "--ignore-eos"])
    if batch is None:
        row("batch of 3 prompts (37, 20, 5 tokens)", False, "runner failed: " + " ".join(out.split())[:200])
    else:
        for i, p in enumerate(prompts):
            alone, _ = ours(["--prompt-ids", ",".join(map(str, p)), "--max-new", "16", "--ignore-eos"])
            hf = hf_greedy(p, 16)
            first = next((k for k, (x, y) in enumerate(zip(batch[i], hf)) if x != y), None)
            tie, note = (True, "") if first is None else margin_note(p, hf, first)
            same_alone = alone is not None and alone[0] == batch[i]
            row(f"batch sequence {i} ({len(p)} tokens)", same_alone and (first is None or tie),
                f"against HF greedy: {'same' if first is None else f'first mismatch at {first}, ' + note}; against ours alone: {'same' if same_alone else 'DIFFERENT'}")

    # 2. Stop at the config's eos_token_id: the eos is a token our own greedy run produces at step ≥ 5 and not
    # before (HF's continuation may leave ours at an exact bf16 tie, so ours is the reference here).
    p = prompts[0]
    free, _ = ours(["--prompt-ids", ",".join(map(str, p)), "--max-new", "16", "--ignore-eos"])
    seq = free[0] if free else []
    k = next((i for i in range(5, len(seq)) if seq[i] not in seq[:i]), None)
    if k is None:
        row("eos stop", False, f"no token at steps 5..16 of our greedy run that was not produced before: {seq}")
    else:
        epath = os.path.join(a.work, a.model + "-eos")
        shutil.rmtree(epath, ignore_errors=True)
        shutil.copytree(path, epath)
        cfg = json.load(open(os.path.join(epath, "config.json")))
        cfg["eos_token_id"] = seq[k]
        json.dump(cfg, open(os.path.join(epath, "config.json"), "w"))
        toks, out = ours(["--prompt-ids", ",".join(map(str, p)), "--max-new", "16"], epath)
        ok = toks is not None and toks[0] == seq[:k + 1]
        row("eos stop", ok, f"eos = token {seq[k]} (our greedy #{k}); with it as the config's eos the run produced {len(toks[0]) if toks else '-'} tokens{'' if ok else f': {toks}'}")

    # 3. Text prompts through tokenizer.json.
    try:
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
        corpus = ["The quick brown fox jumps over the lazy dog.", "Attention is all you need, and kernels in Rust.",
                  "A pure-Rust CUDA kernel lab verifies every result.", "Grouped-query heads share their keys and values."] * 20
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=min(vocab, 400), special_tokens=["<s>", "</s>"],
                                                            initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
        tpath = os.path.join(a.work, a.model + "-text")
        shutil.rmtree(tpath, ignore_errors=True)
        shutil.copytree(path, tpath)
        tok.save(os.path.join(tpath, "tokenizer.json"))
        text = "The lazy fox reads kernels in Rust."
        want = tok.encode(text).ids
        toks_t, out = ours(["--prompt", text, "--max-new", "8", "--ignore-eos"], tpath)
        m = re.search(r"prompt: \d+ tokens \[([\d, ]*)\]", out or "")
        got_ids = [int(x) for x in m.group(1).split(",") if x.strip()] if m else None
        toks_i, _ = ours(["--prompt-ids", ",".join(map(str, want)), "--max-new", "8", "--ignore-eos"], tpath)
        ok = got_ids == want and toks_t is not None and toks_t == toks_i
        row("text prompt via tokenizer.json", ok, f"tokenizers: {want}; ours: {got_ids}; generation {'same' if toks_t == toks_i else 'DIFFERENT'} as from the ids")
    except ImportError as e:
        row("text prompt via tokenizer.json", False, f"tokenizers not importable: {e}")
    write_lines(a.out, lines)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
