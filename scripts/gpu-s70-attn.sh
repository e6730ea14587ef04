#!/usr/bin/env bash
# Session 70 (issues 49, 51): decode attention reading the length and its first tiles' older keys before the
# PDL wait (`CacheReady::AtLaunch`) with its fused combine in one L2 round trip, and the runner's small kernels
# releasing the next grid before their wait. PART=checks: the decode GPU tests, memcheck and racecheck, the tiny
# HF checkpoints against HF (this runner), `kernel-lab decode` new against old × 3 processes. PART=runner: the
# Llama-3-8B-shaped runner (synthetic weights) at batch 1 (2048-token prompt, 64 steps) for each build in
# B1 (plus `llm` with decode attention left out), batch 32 (128-token prompts) for B32 and with session 69's
# GEMM picks undone, FP8 batch 1 for FP8, alternating, 3 processes each, greedy tokens compared.
# Builds in .carry: llm (small kernels release first), llm-attn (0f2b024), llm-old and kernel-lab-old (20c99da).
# $OUT gets the log, hf-check.md and json.tgz (every JSON, re-packed at each stamp: a killed call keeps its rounds).
set -uo pipefail
. scripts/device-log.sh "s70-${PART:-checks}.txt" 300
J=/tmp/s70j; mkdir -p $J
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; tar czf "$OUT/json.tgz" -C $J .; }
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
if [ "${PART:-checks}" = checks ]; then
  run $C/tests/decode --test-threads=1; stamp tests
  T=400 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/decode --test-threads=1 decode_matches appended; stamp memcheck
  T=300 run compute-sanitizer --tool racecheck --error-exitcode 9 $C/tests/decode --test-threads=1 appended; stamp racecheck
  [ "${HF:-1}" = 1 ] && { T=300 run python3 scripts/llm-hf-check.py --llm $C/llm --out "$OUT/hf-check.md"; stamp hf; }
  S=${DECODE_SHAPES:-1x32x8x512x128,1x32x8x2048x128,1x32x8x4096x128,1x32x8x32768x128,32x32x8x4096x128,16x32x8x4096x64,16x16x8x8192x256}
  for i in 1 2 3; do
    for b in kernel-lab kernel-lab-old; do run $C/$b decode --dtype bf16 --shapes $S --json "$J/decode-$b-$i.json"; done
    stamp "decode round $i"
  done
else
  OLDPICKS='KERNEL_LAB_LLM_GEMM_STEP=32x4096x14336=d16-bf16;32x28672x4096=d19-bf16;32x128256x4096=d19-bf16'
  for b in ${B1:-llm llm-attn llm-old}; do T=120 run $C/$b --model $M --synthetic-weights --prompt-len 128 --max-new 8 --batch 1; done   # warm: JIT
  stamp warm
  for i in 1 2 3; do
    for b in ${B1:-llm llm-attn llm-old}; do
      T=90 run env KERNEL_LAB_LLM_REPLAY=${REPLAY:-0} $C/$b --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/b1:$b-$i.json
    done
    [ "${ABLATE:-1}" = 1 ] && T=90 run env KERNEL_LAB_LLM_ABLATE=attn $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/b1-noattn:llm-$i.json
    stamp "b1 round $i"
    for b in ${B32-llm llm-old}; do
      T=90 run $C/$b --model $M --synthetic-weights --prompt-len 128 --max-new 32 --batch 32 --ignore-eos --json $J/b32:$b-$i.json
    done
    [ "${OLDP:-1}" = 1 ] && T=90 run env "$OLDPICKS" $C/llm --model $M --synthetic-weights --prompt-len 128 --max-new 32 --batch 32 --ignore-eos --json $J/b32-oldpicks:llm-$i.json
    stamp "b32 round $i"
    for b in ${FP8-llm llm-old}; do
      T=90 run $C/$b --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/b1-fp8:$b-$i.json
    done
    stamp "fp8 round $i"
  done
  python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, os, sys, statistics as st
d, tok = {}, {}
for f in sorted(glob.glob(sys.argv[1] + "/b*.json")):
    key = os.path.basename(f).rsplit("-", 1)[0]
    r = json.load(open(f)); d.setdefault(key, []).append(r["decode_ms_per_step"])
    if r.get("replay_ms_per_step"): d.setdefault(key + " (graph replayed)", []).append(r["replay_ms_per_step"])
    tok.setdefault(key.split(":")[0].replace("-noattn", "-x").replace("-oldpicks", ""), []).append(r["tokens"])
med = {k: st.median(v) for k, v in d.items()}
print("| run:build | ms per step (median of 3 processes) |"); print("|---|---|")
for k, v in sorted(d.items()):
    print(f"| {k} | {med[k]:.3f} ({', '.join(f'{x:.3f}' for x in sorted(v))}) |")
for run in ("b1", "b32", "b1-fp8"):
    base = med.get(f"{run}:llm-old")
    for k in sorted(med):
        if base and k.startswith(run + ":"):
            print(f"{k} / {run}:llm-old = {med[k] / base:.4f}")
    if run in tok:
        print(f"{run}: greedy tokens identical across builds and processes: {all(t == tok[run][0] for t in tok[run])}")
PY
fi
grep -E "^==|^exit [1-9]|^t\+|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|max rel|logits|tokens" "$L" | grep -v "^== .carry/llm" | head -80 || true
