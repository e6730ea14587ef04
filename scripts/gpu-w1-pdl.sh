#!/usr/bin/env bash
# Session 64 (issue 51): w1 (FP8 weight-only decode) releasing the next grid after its K loop and reading
# its first step's weights before the PDL wait (`W8Plan::set_w_ready(BReady::AtLaunch)`), in one call: the
# FP8-weight GPU tests (the chain with weights at launch bit for bit against the synchronized one) and
# memcheck of the chain; the runner with --fp8 at batch 1 (2048-token prompt) and batch 32 (128-token
# prompts), this build against the build before (.carry/llm-old), alternating, 3 processes each, the bf16
# step of this build beside them; the FP8 step with the O and gate/up projections left out.
# Carry: scripts/slim-carry.sh fp8_weights, plus .carry/llm-old.xz (the previous commit's runner).
set -uo pipefail
. scripts/device-log.sh w1-pdl.txt 120
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
J=/tmp/w1p; mkdir -p $J
T=240 run $C/tests/fp8_weights
T=200 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/fp8_weights w1_with_weights_at_launch
for b in llm llm-old; do run $C/$b --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1; done   # warm: JIT into the cache
for i in 1 2 3; do
  for b in llm llm-old; do
    T=90 run $C/$b --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/b1-fp8:$b-$i.json
    T=90 run $C/$b --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 32 --batch 32 --ignore-eos --json $J/b32-fp8:$b-$i.json
  done
  T=90 run $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/b1-bf16:llm-$i.json
  for a in o gu; do
    T=90 run env KERNEL_LAB_LLM_ABLATE=$a $C/llm --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/b1-fp8-no-$a:llm-$i.json
  done
done
tar czf "$OUT/json.tar.gz" -C $J .
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, os, sys, statistics as st
d, tok = {}, {}
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    key = os.path.basename(f).rsplit("-", 1)[0]
    r = json.load(open(f)); d.setdefault(key, []).append(r["decode_ms_per_step"]); tok.setdefault(key.split(":")[0], []).append(r["tokens"])
med = {k: st.median(v) for k, v in d.items()}
print("| run:build | ms per step (median of 3 processes) |"); print("|---|---|")
for k, v in sorted(d.items()):
    print(f"| {k} | {med[k]:.3f} ({', '.join(f'{x:.3f}' for x in sorted(v))}) |")
for b in ("b1-fp8", "b32-fp8"):
    print(f"{b}: this build / before = {med[b + ':llm'] / med[b + ':llm-old']:.4f}; greedy tokens identical across builds and processes: {all(t == tok[b][0] for t in tok[b])}")
print(f"batch 1: bf16 / fp8 (this build) = {med['b1-bf16:llm'] / med['b1-fp8:llm']:.3f}")
for a in ("o", "gu"):
    print(f"the FP8 {a} projection costs {1000 * (med['b1-fp8:llm'] - med[f'b1-fp8-no-{a}:llm']) / 32:.2f} µs a layer in the graph")
PY
grep -E "^==|^exit [1-9]|test result|FAILED|panicked|ERROR SUMMARY|SKIPPED" "$L" | grep -v "^== env\|^== .carry/llm" | head -40 || true
