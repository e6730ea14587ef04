#!/usr/bin/env bash
# Session 79 (issues 48, 51): d2's grid sized for 2 blocks an SM (KERNEL_LAB_DECODE_BLOCKS_PER_SM=2) against 1 (the
# default). The GEMM entry point (bf16, each shape interleaved with cuBLAS) on 42 corpus shapes: the 18 (at M = 1, 8,
# 32, 64) whose pick the knob changes in `kernel-lab rank`, and 24 drawn from the 178 where the entry runs d2 with
# fewer than 2 tiles an SM either way (seed 79); 3 processes each, alternating. Then the Llama-3-8B-shaped runner at
# batch 1, both settings, 3 rounds. $OUT gets the log and json.tgz (with each entry process's output).
set -uo pipefail
. scripts/device-log.sh "s79-bpsm.txt" 200
J=/tmp/s79; mkdir -p $J
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; tar czf "$OUT/json.tgz" -C $J .; }
S=1x1536x1024,1x16384x2048,1x2304x768,1x3072x1536,1x3584x4096,1x4096x5504,32x1024x2048,32x256000x3584,32x768x1536,64x1024x4096,64x768x3072,8x1536x1024,8x16384x2048,8x2304x768,8x3072x1536,8x3584x4096,8x4096x5504,16x13824x5120,16x16384x2048,16x3072x2048,16x3584x14336,16x3584x7168,1x1024x1024,1x1024x4096,1x1152x768,1x14336x3584,1x16032x3072,1x3072x8192,1x3584x14336,1x4096x7168,2x14336x3584,2x2048x2048,2x3072x3072,2x3584x14336,2x768x768,4x11008x4096,4x16032x3072,4x2048x1024,4x2048x2048,8x14336x4096,8x768x3072
for i in 1 2 3; do
  for b in 1 2; do
    echo "== entry, blocks/SM $b, process $i" | tee -a "$L"
    KERNEL_LAB_DECODE_BLOCKS_PER_SM=$b timeout 300 $C/kernel-lab --family gemm --dtype bf16 --gemm-sizes $S --seed 793$i > $J/entry-b$b-$i.txt 2>&1
    echo "exit $?" | tee -a "$L"
  done
  stamp "entry round $i"
done
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
T=150 run $C/llm --model $M --synthetic-weights --prompt-len 128 --max-new 8 --batch 1; stamp warm
R="--model $M --synthetic-weights --prompt-len 2048 --max-new 64 --ignore-eos --batch 1"
for i in 1 2 3; do
  for b in 1 2; do
    T=120 run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_DECODE_BLOCKS_PER_SM=$b $C/llm $R --json $J/llm-b$b-$i.json
  done
  stamp "runner round $i"
done
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, sys, statistics as st
d = sys.argv[1]; r = {}
for b in (1, 2):
    x = [json.load(open(f)) for f in sorted(glob.glob(f"{d}/llm-b{b}-*.json"))]
    if not x: continue
    r[b] = (st.median(e["decode_ms_per_step"] for e in x), st.median(e["replay_ms_per_step"] for e in x))
    print(f"runner, blocks/SM {b}: wall {r[b][0]:.3f} ({', '.join(f'{e[\"decode_ms_per_step\"]:.3f}' for e in x)}), GPU {r[b][1]:.3f} ({', '.join(f'{e[\"replay_ms_per_step\"]:.3f}' for e in x)}), tokens {len(set(json.dumps(e['tokens']) for e in x))} distinct")
if 1 in r and 2 in r: print(f"runner 2 / 1: wall {r[2][0] / r[1][0]:.4f}, GPU {r[2][1] / r[1][1]:.4f}")
PY
stamp done
