#!/usr/bin/env python3
"""Checks the `llm` runner against Hugging Face transformers on random-weight checkpoints, and times both.

usage: python3 scripts/llm-hf-check.py --llm PATH/TO/llm [--models tiny-llama,tiny-qwen2,tiny-mistral,tiny-phi3,llama3-8b]
                                       [--work DIR] [--new 32] [--out report.md] [--llm-args "--fp8" --report-only]
       python3 scripts/llm-hf-check.py --make-only --models llama3-8b     (the checkpoints only)

For each model: a config in that architecture's shape, `XForCausalLM(config)` with transformers' random init in
bf16 (seeded), `save_pretrained` (safetensors) into --work; HF's forward on a fixed prompt gives the logits of
every position, HF's greedy `generate` gives --new tokens; the runner is run on the same directory and prompt
(`--logits-out`, `--json`). Reported: the logits' relative L2 error and largest absolute difference against HF
(bf16 tolerance: rel L2 ≤ 2e-2 against HF's bf16 logits, or against HF's f32 logits — the same weights widened —
no more than 1.5× HF's own bf16 error: random deep models amplify rounding), whether the greedy tokens match, and at the first mismatch HF's margin
between its top two logits there (a near-tie when under 2e-2 of the largest |logit|). Exits 1 when a check
fails, 2 without torch/transformers/GPU. With --report-only (FP8 weights: their rounding is the error being
measured) nothing fails on tolerance; a runner that fails still does.
"""
import argparse
import json
import os
import subprocess
import sys

from peer_common import import_torch, write_lines
import time

SHAPES = {
    # name: (architecture, config fields)
    "tiny-llama": ("llama", dict(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                                 vocab_size=1000, max_position_embeddings=512, rope_theta=10000.0)),
    "tiny-llama31": ("llama", dict(hidden_size=512, intermediate_size=1024, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=1,
                                   vocab_size=2048, max_position_embeddings=1024, rope_theta=500000.0,
                                   rope_scaling=dict(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                                                     original_max_position_embeddings=128))),
    "tiny-qwen2": ("qwen2", dict(hidden_size=384, intermediate_size=768, num_hidden_layers=2, num_attention_heads=6, num_key_value_heads=2,
                                 vocab_size=1500, max_position_embeddings=512, tie_word_embeddings=True)),
    "tiny-mistral": ("mistral", dict(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=1,
                                     vocab_size=1000, max_position_embeddings=512, sliding_window=None)),
    # Phi-3: fused qkv_proj / gate_up_proj tensors, head dim 96.
    "tiny-phi3": ("phi3", dict(hidden_size=384, intermediate_size=768, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                               vocab_size=1000, max_position_embeddings=512, original_max_position_embeddings=512, sliding_window=None,
                               pad_token_id=0, bos_token_id=1, eos_token_id=2)),
    "llama3-8b": ("llama", dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
                                vocab_size=128256, max_position_embeddings=8192, rope_theta=500000.0)),
}


def make(name, work, torch, transformers):
    arch, fields = SHAPES[name]
    path = os.path.join(work, name)
    if os.path.exists(os.path.join(path, "config.json")):
        return path
    cls = {"llama": (transformers.LlamaConfig, transformers.LlamaForCausalLM), "qwen2": (transformers.Qwen2Config, transformers.Qwen2ForCausalLM),
           "mistral": (transformers.MistralConfig, transformers.MistralForCausalLM), "phi3": (transformers.Phi3Config, transformers.Phi3ForCausalLM)}[arch]
    torch.manual_seed(0)
    cfg = cls[0](**fields)
    with torch.device("cuda"):
        model = cls[1](cfg).to(torch.bfloat16)
    model.save_pretrained(path, safe_serialization=True)
    del model
    torch.cuda.empty_cache()
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--llm", help="the runner (required unless --make-only)")
    ap.add_argument("--make-only", action="store_true", help="only make the --models checkpoints in --work (for timing runs)")
    ap.add_argument("--models", default="tiny-llama,tiny-llama31,tiny-qwen2,tiny-mistral,tiny-phi3")
    ap.add_argument("--work", default="/tmp/llm-check")
    ap.add_argument("--new", type=int, default=32)
    ap.add_argument("--prompt-len", type=int, default=37)
    ap.add_argument("--llm-args", default="", help="more arguments for the runner (e.g. \"--tp 2\")")
    ap.add_argument("--report-only", action="store_true",
                    help="report the errors without failing on the bf16 tolerance or a non-tie mismatch (e.g. with --llm-args --fp8: quantized weights)")
    ap.add_argument("--out")
    a = ap.parse_args()
    got = import_torch(transformers=True)
    if got is None:
        return 2
    torch, transformers = got
    os.makedirs(a.work, exist_ok=True)
    if a.make_only:
        for name in a.models.split(","):
            print(make(name, a.work, torch, transformers))
        return 0
    if not a.llm:
        ap.error("--llm is required (or --make-only)")
    lines = [f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, transformers {transformers.__version__}"
             + (f"; runner arguments: {a.llm_args}" if a.llm_args else ""),
             "| model | prompt | logits rel L2 | max abs diff | greedy tokens | first mismatch | note |", "|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    failed = False
    for name in a.models.split(","):
        path = make(name, a.work, torch, transformers)
        model = transformers.AutoModelForCausalLM.from_pretrained(path, dtype=torch.bfloat16).cuda().eval()
        vocab = model.config.vocab_size
        g = torch.Generator().manual_seed(1)
        prompt = torch.randint(1, vocab, (a.prompt_len,), generator=g).tolist()
        ids = torch.tensor([prompt], device="cuda")
        with torch.no_grad():
            ref = model(ids).logits[0].float().cpu()
            gen = model.generate(ids, max_new_tokens=a.new, do_sample=False, min_new_tokens=a.new)[0, len(prompt):].tolist()
        logits_path, json_path = os.path.join(a.work, f"{name}.logits"), os.path.join(a.work, f"{name}.json")
        cmd = [a.llm, "--model", path, "--prompt-ids", ",".join(map(str, prompt)), "--max-new", str(a.new), "--logits-out", logits_path, "--json", json_path, "--ignore-eos"] + a.llm_args.split()
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            row = f"| {name} | {len(prompt)} | - | - | - | - | runner failed: {' '.join((r.stderr or r.stdout).split())[:200]} |"
            print(row, flush=True)
            lines.append(row)
            failed = True
            continue
        ours = torch.frombuffer(bytearray(open(logits_path, "rb").read()), dtype=torch.float32).reshape(len(prompt), vocab)
        rel = ((ours - ref).norm() / ref.norm()).item()
        mad = (ours - ref).abs().max().item()
        # The bf16 noise floor: HF's own bf16 logits and ours against HF in f32 (the same weights, widened).
        with torch.no_grad():
            ref32 = model.float()(ids).logits[0].float().cpu()
        model.to(torch.bfloat16)
        rel_hf32 = ((ref - ref32).norm() / ref32.norm()).item()
        rel_ours32 = ((ours - ref32).norm() / ref32.norm()).item()
        toks = json.load(open(json_path))["tokens"][0]
        same = toks == gen
        first = next((i for i, (x, y) in enumerate(zip(toks, gen)) if x != y), None)
        note = ""
        if first is not None:
            # HF's margin between its top two logits at the first mismatch (HF's own continuation).
            with torch.no_grad():
                seq = torch.tensor([prompt + gen[:first]], device="cuda")
                last = model(seq).logits[0, -1].float()
            top = torch.topk(last, 2).values
            margin = (top[0] - top[1]).item()
            scale = last.abs().max().item()
            note = f"HF margin {margin:.3g} ({margin / max(scale, 1e-9):.2%} of max |logit|): {'near-tie' if margin < 2e-2 * scale else 'NOT a near-tie'}"
            failed |= margin >= 2e-2 * scale and not a.report_only
        # Within tolerance: close to HF's bf16 logits, or no farther from f32 than 1.5× HF's bf16 is.
        ok = rel <= 2e-2 or rel_ours32 <= 1.5 * rel_hf32
        failed |= not ok and not a.report_only
        note = f"vs HF f32: ours {rel_ours32:.2e}, HF bf16 {rel_hf32:.2e}{'' if ok else ' OUT OF TOLERANCE'}; " + note
        row = f"| {name} | {len(prompt)} | {rel:.2e} | {mad:.3g} | {'same' if same else 'differ'} ({len(toks)}) | {first if first is not None else '-'} | {note} |"
        print(row, flush=True)
        lines.append(row)
        del model
        torch.cuda.empty_cache()
    write_lines(a.out, lines)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
