#!/usr/bin/env bash
# (History: the knobs KERNEL_LAB_LLM_PIPELINE and KERNEL_LAB_LLM_WARM_L2 and the D = 64 5-stage build exist only in commit
# 0dbe580, whose builds this script ran; they were reverted in c252b4b.)
# Session 71 (issues 49, 51). PART=runner: the GPU tests of decode attention (ad4 bit for bit against ad3, D = 64
# on 5 stages), of the runner's greedy steps launched ahead (decode_greedy) and kernels; then the Llama-3-8B-shaped
# runner (synthetic weights, batch 1, 2048-token prompt, 64 steps, the graph replayed 100 times after) in four
# variants alternating process by process, ROUNDS each: base (each step launched after the last one's tokens are
# read, no L2 warm: session 70's runner), pipe (steps launched ahead), warm (decode attention ad4 warming the L2
# with the O projection's weights), both (the default). FP8=1 adds FP8 weights, both against base.
# PART=decode: `kernel-lab decode` with D = 64 on 5 stages (kernel-lab) against 3 (kernel-lab-s3), ROUNDS each.
# Builds in .carry (scripts: see the session's results README). $OUT gets the log and json.tgz.
set -uo pipefail
. scripts/device-log.sh "s71-${PART:-runner}.txt" 300
J=/tmp/s71j; mkdir -p $J
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; tar czf "$OUT/json.tgz" -C $J .; }
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
if [ "${PART:-runner}" = runner ]; then
  if [ "${TESTS:-1}" = 1 ]; then
    for t in decode decode_greedy kernels; do [ -x $C/tests/$t ] && run $C/tests/$t --test-threads=1; done; stamp tests
  fi
  T=120 run $C/llm --model $M --synthetic-weights --prompt-len 128 --max-new 8 --batch 1; stamp warm   # JIT
  declare -A V=([base]="KERNEL_LAB_LLM_PIPELINE=0 KERNEL_LAB_LLM_WARM_L2=0" [pipe]="KERNEL_LAB_LLM_WARM_L2=0" [warm]="KERNEL_LAB_LLM_PIPELINE=0" [both]="X=1"
              [pipe32]="KERNEL_LAB_LLM_WARM_L2=0" [base32]="KERNEL_LAB_LLM_PIPELINE=0 KERNEL_LAB_LLM_WARM_L2=0")
  for i in $(seq 1 ${ROUNDS:-3}); do
    for v in ${VARIANTS:-base pipe warm both}; do
      T=90 run env ${V[$v]} KERNEL_LAB_LLM_REPLAY=100 $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/b1:$v-$i.json
    done
    if [ "${B32:-0}" = 1 ]; then
      for v in base32 pipe32; do
        T=90 run env ${V[$v]} $C/llm --model $M --synthetic-weights --prompt-len 128 --max-new 32 --batch 32 --ignore-eos --json $J/b32:$v-$i.json
      done
    fi
    if [ "${FP8:-0}" = 1 ]; then
      for v in base both; do
        T=90 run env ${V[$v]} KERNEL_LAB_LLM_REPLAY=100 $C/llm --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/fp8:$v-$i.json
      done
    fi
    stamp "round $i"
  done
  python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, os, sys, statistics as st
d = {}
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    k = os.path.basename(f).rsplit("-", 1)[0]; r = json.load(open(f))
    e = d.setdefault(k, {"wall": [], "gpu": [], "tok": []})
    e["wall"].append(r["decode_ms_per_step"]); e["gpu"].append(r.get("replay_ms_per_step") or float("nan")); e["tok"].append(r["tokens"])
print("| run:variant | ms per step (wall) | graph replayed (GPU) | host's share |"); print("|---|---|---|---|")
for k, v in d.items():
    w, g = st.median(v["wall"]), st.median(v["gpu"])
    print(f"| {k} | {w:.3f} ({', '.join(f'{x:.3f}' for x in sorted(v['wall']))}) | {g:.3f} ({', '.join(f'{x:.3f}' for x in sorted(v['gpu']))}) | {1e3 * (w - g):.0f} µs |")
for run in ("b1", "fp8", "b32"):
    b = d.get(run + ":base") or d.get(run + ":base32")
    if not b: continue
    for k, v in d.items():
        if k.startswith(run + ":") and v is not b:
            print(f"{k} / base: wall {st.median(v['wall']) / st.median(b['wall']):.4f}, GPU {st.median(v['gpu']) / st.median(b['gpu']):.4f}")
    toks = [t for k, v in d.items() if k.startswith(run + ":") for t in v["tok"]]
    print(f"{run}: greedy tokens identical across variants and processes:", all(t == toks[0] for t in toks))
PY
else
  S=${DECODE_SHAPES:-16x32x8x4096x64,2x32x8x4096x64,1x32x8x8192x64,64x32x8x2048x64,1x32x8x2048x128,32x32x8x4096x128}
  for i in $(seq 1 ${ROUNDS:-3}); do
    for b in kernel-lab kernel-lab-s3; do run $C/$b decode --dtype bf16 --shapes $S --json "$J/decode-$b-$i.json"; done
    stamp "decode round $i"
  done
  [ "${PEER:-1}" = 1 ] && { T=200 run python3 scripts/decode-torch-peer.py --shapes $S; stamp peer; }
fi
grep -E "^==|^exit [1-9]|^t\+|test result|FAILED|panicked|ERROR SUMMARY|identical|/ base|^\|" "$L" | grep -v "^== .carry/llm" | head -80 || true
