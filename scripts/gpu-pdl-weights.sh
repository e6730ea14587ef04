#!/usr/bin/env bash
# Session 63 (issue 51): d2/d24 releasing the next grid after their K loop and copying their first weight
# stages before the PDL wait (`BReady::AtLaunch`), in one call: the GPU tests of the split-K steps, PDL
# chains (d2 with B at launch, bit for bit against its synchronized chain) and the GEMM entry point;
# memcheck of the chain test; the tiny HF checkpoints against HF; then the runner at batch 1 (2048-token
# prompt) and batch 32 (128-token prompts) on the Llama-3-8B shape (synthetic weights), this build against
# the build before (.carry/llm-early), alternating, 3 processes each, the greedy tokens compared.
# Carry: scripts/slim-carry.sh gpu, plus .carry/llm-early.xz (the previous commit's runner).
set -uo pipefail
. scripts/device-log.sh pdl-weights.txt 300
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
J=/tmp/pw; mkdir -p $J
T=240 run $C/tests/gpu pdl_launches_wait_for_the_previous_grid the_gemm_entry_point split_k_steps d24_reads every_hgemm_step
T=200 run compute-sanitizer --tool memcheck $C/tests/gpu pdl_launches_wait_for_the_previous_grid
T=200 run python3 scripts/llm-hf-check.py --llm $C/llm --out "$OUT/hf-check.md"
for b in llm llm-early; do run $C/$b --model $M --synthetic-weights --prompt-len 512 --max-new 8 --batch 1; done   # warm: JIT into the cache
for i in 1 2 3; do
  for b in llm llm-early; do
    T=90 run $C/$b --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/b1-$b-$i.json
    T=90 run $C/$b --model $M --synthetic-weights --prompt-len 128 --max-new 32 --batch 32 --ignore-eos --json $J/b32-$b-$i.json
  done
done
tar czf "$OUT/json.tar.gz" -C $J .
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, os, sys, statistics as st
d, tok = {}, {}
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    key = os.path.basename(f).rsplit("-", 1)[0]
    r = json.load(open(f)); d.setdefault(key, []).append(r["decode_ms_per_step"]); tok.setdefault(key, []).append(r["tokens"])
print("| run | ms per step (median of 3 processes) |"); print("|---|---|")
for k, v in d.items():
    print(f"| {k} | {st.median(v):.3f} ({', '.join(f'{x:.3f}' for x in sorted(v))}) |")
for b in ("b1", "b32"):
    print(f"{b}: this build / before = {st.median(d[b + '-llm']) / st.median(d[b + '-llm-early']):.4f}; greedy tokens identical across builds and processes: "
          f"{all(t == tok[b + '-llm'][0] for t in tok[b + '-llm'] + tok[b + '-llm-early'])}")
PY
grep -E "^==|^exit [1-9]|test result|FAILED|panicked|ERROR SUMMARY|SKIPPED|max rel|logits|tokens" "$L" | grep -v "^== .carry/llm" | head -60 || true
