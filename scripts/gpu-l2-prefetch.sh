#!/usr/bin/env bash
# Session 64 (issue 51): d2/d24 asking the L2 to prefetch their weights before the PDL wait
# (`KERNEL_LAB_DECODE_L2_PREFETCH`, percent of the L2 a launch may prefetch; 0 = off, the session-63
# behaviour). One call: the PDL chain test and its memcheck; the runner (Llama-3-8B shape, synthetic
# weights) at batch 1 (2048-token prompt) and batch 32 (128-token prompts) with the knob's values
# interleaved round by round, 3 processes each; the step with the O projection left out at 0 and 75 (what
# O costs in the graph). Carry: scripts/slim-carry.sh gpu.
set -uo pipefail
. scripts/device-log.sh l2-prefetch.txt 120
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
J=/tmp/l2p; mkdir -p $J
T=240 run $C/tests/gpu pdl_launches_wait_for_the_previous_grid split_k_steps d24_reads
T=200 run compute-sanitizer --tool memcheck $C/tests/gpu pdl_launches_wait_for_the_previous_grid
run $C/llm --model $M --synthetic-weights --prompt-len 512 --max-new 8 --batch 1   # warm: JIT into the cache
for i in 1 2 3; do
  for p in ${PCTS:-0 40 75 100}; do
    T=90 run env KERNEL_LAB_DECODE_L2_PREFETCH=$p $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/b1:p$p-$i.json
  done
  for p in 0 75; do
    T=90 run env KERNEL_LAB_DECODE_L2_PREFETCH=$p $C/llm --model $M --synthetic-weights --prompt-len 128 --max-new 32 --batch 32 --ignore-eos --json $J/b32:p$p-$i.json
    for a in none o; do
      T=90 run env KERNEL_LAB_DECODE_L2_PREFETCH=$p KERNEL_LAB_LLM_ABLATE=$a $C/llm --model $M --synthetic-weights --prompt-len 512 --max-new 96 --batch 1 --ignore-eos --json $J/ablate-$a:p$p-$i.json
    done
  done
done
tar czf "$OUT/json.tar.gz" -C $J .
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, os, sys, statistics as st
d, tok = {}, {}
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    key = os.path.basename(f).rsplit("-", 1)[0]
    r = json.load(open(f)); d.setdefault(key, []).append(r["decode_ms_per_step"]); tok.setdefault(key.split(":")[0], []).append(r["tokens"])
print("| run:knob | ms per step (median of 3 processes) | against knob 0 |"); print("|---|---|---|")
for k, v in sorted(d.items()):
    base = d.get(k.split(":")[0] + ":p0")
    print(f"| {k} | {st.median(v):.3f} ({', '.join(f'{x:.3f}' for x in sorted(v))}) | {st.median(v) / st.median(base):.4f} |" if base else f"| {k} | {st.median(v):.3f} | |")
for b in ("b1", "b32"):
    print(f"{b}: greedy tokens identical across knob values and processes: {all(t == tok[b][0] for t in tok[b])}")
PY
grep -E "^==|^exit [1-9]|test result|FAILED|panicked|ERROR SUMMARY|SKIPPED" "$L" | grep -v "^== env\|^== .carry/llm" | head -40 || true
