#!/usr/bin/env bash
# Session 75: step w6 (w5 with three steps in flight a warp at 8 tokens; call 1 ran the first w6, the steps staged in
# shared memory). The fp8_weights GPU tests (w6, w5, w1; the chains with weights at launch), memcheck and racecheck
# of the chain test, the FP8 runner
# with w6 (the default) against w5 (KERNEL_LAB_W8_STEP=w5) and bf16, Llama-3-8B shape, batch 1, 2048-token
# prompt, ROUNDS processes each alternating; then `kernel-lab w8` (w6 against w5, one process); then every GEMM
# candidate timed (--autotune) at three shapes where the cost model's extrapolation guard changed the pick.
# $OUT gets the log and json.tgz. Carry: scripts/slim-carry.sh fp8_weights.
set -uo pipefail
. scripts/device-log.sh "s75-w6.txt" 300
J=/tmp/s75; mkdir -p $J
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; tar czf "$OUT/json.tgz" -C $J .; }
run $C/tests/fp8_weights --test-threads=1; stamp tests
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
for tool in memcheck racecheck; do
  T=150 run $CS --tool $tool --print-limit 5 $C/tests/fp8_weights --test-threads=1 w1_with_weights_at_launch_waits_for_its_activations
done
stamp sanitizers
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
T=120 run $C/llm --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1; stamp warm
for i in $(seq 1 ${ROUNDS:-3}); do
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/w6-$i.json
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_W8_STEP=w5 $C/llm --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/w5-$i.json
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/bf16-$i.json
  stamp "round $i"
done
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, sys, statistics as st
d = sys.argv[1]; r = {}
for v in ("w6", "w5", "bf16"):
    x = [json.load(open(f)) for f in sorted(glob.glob(f"{d}/{v}-*.json"))]
    if not x: continue
    r[v] = (st.median(e["decode_ms_per_step"] for e in x), st.median(e["replay_ms_per_step"] for e in x))
    print(f"{v}: wall {r[v][0]:.3f} ({', '.join(f'{e['decode_ms_per_step']:.3f}' for e in x)}), GPU {r[v][1]:.3f} ({', '.join(f'{e['replay_ms_per_step']:.3f}' for e in x)})")
    r[v + "tok"] = [json.dumps(e["tokens"]) for e in x]
for v in ("w6", "w5"):
    if v + "tok" in r: print(f"{v}: greedy tokens identical across processes: {len(set(r[v + 'tok'])) == 1}")
if "w6tok" in r and "w5tok" in r: print(f"w6 tokens == w5 tokens: {r['w6tok'][0] == r['w5tok'][0]}")
for v in ("w6", "w5"):
    if v in r and "bf16" in r: print(f"bf16 / {v}: wall {r['bf16'][0] / r[v][0]:.3f}x, GPU {r['bf16'][1] / r[v][1]:.3f}x")
if "w6" in r and "w5" in r: print(f"w6 / w5 GPU time: {r['w6'][1] / r['w5'][1]:.4f}")
PY
T=200 run $C/kernel-lab w8 --against w5 --shapes 1x6144x4096,1x4096x4096,1x28672x4096,1x4096x14336,1x128256x4096,8x28672x4096,8x4096x14336 --json $J/w8.json; stamp w8
T=200 run $C/kernel-lab --family gemm --dtype f16 --gemm-sizes 64x256000x3584,128x256000x3584,16384x6144x768 --autotune --tune-cache $J/tune.json --json $J/gemm.json; stamp gemm
stamp done
