#!/usr/bin/env bash
# Session 79 (issue 51, exploration): is the bf16 runner's down projection (1x4096x14336, d2: 64 column tiles,
# 3 splits = 192 CTAs on 132 SMs) short of bytes in flight? d2 at the runner's four projection shapes with its
# grid sized for 1, 2, 3, 4, 6 blocks per SM (KERNEL_LAB_DECODE_BLOCKS_PER_SM), one process each, bf16, each
# interleaved with cuBLAS and a copy of the same weights; every candidate timed once (--autotune); then the
# Llama-3-8B-shaped runner (synthetic weights, batch 1, 2048-token prompt, the graph replayed 100 times) with
# the knob at 1, 2, 3, 4, alternating process by process, ROUNDS rounds. $OUT gets the log and json.tgz.
set -uo pipefail
. scripts/device-log.sh "s79-d2bpsm.txt" 200
J=/tmp/s79; mkdir -p $J
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; tar czf "$OUT/json.tgz" -C $J .; }
S=1x4096x14336,1x4096x4096,1x6144x4096,1x28672x4096
for b in 1 2 3 4 6; do
  run env KERNEL_LAB_DECODE_BLOCKS_PER_SM=$b $C/kernel-lab --family gemm --dtype bf16 --config d2 --gemm-sizes $S --seed 791$b
done
stamp sweep
run $C/kernel-lab --family gemm --dtype bf16 --autotune --gemm-sizes $S --seed 7919
stamp autotune
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
T=150 run $C/llm --model $M --synthetic-weights --prompt-len 128 --max-new 8 --batch 1; stamp warm
for i in $(seq 1 ${ROUNDS:-2}); do
  for b in 1 2 3 4; do
    T=120 run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_DECODE_BLOCKS_PER_SM=$b $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/b$b-$i.json
  done
  stamp "round $i"
done
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, sys, statistics as st
d = sys.argv[1]
for b in (1, 2, 3, 4):
    x = [json.load(open(f)) for f in sorted(glob.glob(f"{d}/b{b}-*.json"))]
    if not x: continue
    print(f"blocks/SM {b}: wall {st.median(e['decode_ms_per_step'] for e in x):.3f} ({', '.join(f'{e['decode_ms_per_step']:.3f}' for e in x)}), "
          f"GPU {st.median(e['replay_ms_per_step'] for e in x):.3f} ({', '.join(f'{e['replay_ms_per_step']:.3f}' for e in x)}), tokens {len(set(json.dumps(e['tokens']) for e in x))} distinct")
PY
grep -E "^== |^d2 |^cuBLAS |% of copy" "$L" | grep -v "^  cuBLAS" | head -80
stamp done
