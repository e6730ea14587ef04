#!/usr/bin/env bash
# Session 74: the final build's FP8-weights and FP8 GPU tests, and the FP8 runner (packed weights, w5) against bf16,
# Llama-3-8B shape, batch 1, 2048-token prompt, ROUNDS processes each alternating. $OUT gets the log and json.tgz.
set -uo pipefail
. scripts/device-log.sh "s74-final.txt" 300
J=/tmp/s74z; mkdir -p $J
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; tar czf "$OUT/json.tgz" -C $J .; }
for t in fp8_weights fp8; do [ -x $C/tests/$t ] && run $C/tests/$t --test-threads=1; done; stamp tests
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
T=120 run $C/llm --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1; stamp warm
for i in $(seq 1 ${ROUNDS:-3}); do
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/fp8-$i.json
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/bf16-$i.json
  stamp "round $i"
done
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, sys, statistics as st
d = sys.argv[1]; r = {}
for v in ("fp8", "bf16"):
    x = [json.load(open(f)) for f in sorted(glob.glob(f"{d}/{v}-*.json"))]
    r[v] = (st.median(e["decode_ms_per_step"] for e in x), st.median(e["replay_ms_per_step"] for e in x))
    print(f"{v}: wall {r[v][0]:.3f} ({', '.join(f'{e['decode_ms_per_step']:.3f}' for e in x)}), GPU {r[v][1]:.3f} ({', '.join(f'{e['replay_ms_per_step']:.3f}' for e in x)})")
print(f"bf16 / fp8: wall {r['bf16'][0] / r['fp8'][0]:.3f}x, GPU {r['bf16'][1] / r['fp8'][1]:.3f}x")
PY
stamp done
