#!/usr/bin/env bash
# Session 79 (issue 51): d15, d16, d27 issuing their first weight boxes before the PDL wait where the caller
# promised B is not the previous kernel's output (`BReady::AtLaunch`; the runner's projections). The GPU test of
# the PDL chains (each step with B at launch bit for bit against its synchronized chain) and the GEMM entry point;
# the Llama-3-8B-shaped runner (synthetic weights, 2048-token prompt, the graph replayed 100 times), batch 1: the
# previous build (`llm-old`, 4104581) against this one, this one also with d2's grid sized for 2 blocks an SM
# (KERNEL_LAB_DECODE_BLOCKS_PER_SM=2), ROUNDS rounds alternating; batch 32 old against new (2 rounds); d2 alone
# (bf16) at 1 / 2 / 3 blocks an SM on seven deep-K decode shapes, one process each. $OUT gets the log and json.tgz.
# Carry: .carry/{kernel-lab,llm,llm-old}.xz, tests/gpu.xz.
set -uo pipefail
. scripts/device-log.sh "s79-early-tma.txt" 200
J=/tmp/s79; mkdir -p $J
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; tar czf "$OUT/json.tgz" -C $J .; }
T=300 run $C/tests/gpu --test-threads=1 pdl_launches_wait_for_the_previous_grid the_gemm_entry_point_takes_any_shape; stamp tests
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
for b in llm llm-old; do T=150 run $C/$b --model $M --synthetic-weights --prompt-len 128 --max-new 8 --batch 1; done; stamp warm
R="--model $M --synthetic-weights --prompt-len 2048 --max-new 64 --ignore-eos"
for i in $(seq 1 ${ROUNDS:-3}); do
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm-old $R --batch 1 --json $J/old-$i.json
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm $R --batch 1 --json $J/new-$i.json
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_DECODE_BLOCKS_PER_SM=2 $C/llm $R --batch 1 --json $J/new2-$i.json
  stamp "round $i"
done
for i in 1 2; do
  T=120 run env KERNEL_LAB_LLM_REPLAY=20 $C/llm-old $R --batch 32 --json $J/old32-$i.json
  T=120 run env KERNEL_LAB_LLM_REPLAY=20 $C/llm $R --batch 32 --json $J/new32-$i.json
  stamp "batch 32 round $i"
done
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, sys, statistics as st
d = sys.argv[1]; r = {}
for v in ("old", "new", "new2", "old32", "new32"):
    x = [json.load(open(f)) for f in sorted(glob.glob(f"{d}/{v}-*.json"))]
    if not x: continue
    r[v] = (st.median(e["decode_ms_per_step"] for e in x), st.median(e["replay_ms_per_step"] for e in x))
    print(f"{v}: wall {r[v][0]:.3f} ({', '.join(f'{e['decode_ms_per_step']:.3f}' for e in x)}), GPU {r[v][1]:.3f} ({', '.join(f'{e['replay_ms_per_step']:.3f}' for e in x)}), "
          f"tokens {len(set(json.dumps(e['tokens']) for e in x))} distinct")
for a, b in (("new", "old"), ("new2", "old"), ("new2", "new"), ("new32", "old32")):
    if a in r and b in r: print(f"{a} / {b}: wall {r[a][0] / r[b][0]:.4f}, GPU {r[a][1] / r[b][1]:.4f}")
PY
S=1x4096x14336,1x4096x4096,1x8192x28672,1x5120x13824,1x2048x8192,1x3584x18944,8x4096x14336
for b in 1 2 3; do
  run env KERNEL_LAB_DECODE_BLOCKS_PER_SM=$b $C/kernel-lab --family gemm --dtype bf16 --config d2-bf16 --gemm-sizes $S --seed 792$b
done
stamp sweep
grep -E "^== |^d2-bf16 |^  d2-bf16|^  cuBLAS" "$L" | grep -v "llm" | head -60
stamp done
