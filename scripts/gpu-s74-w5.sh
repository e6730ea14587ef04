#!/usr/bin/env bash
# Session 74 (issues 51, 48): step w5 (w1 on weights packed in the order its lanes load them) against w1.
# The GPU tests of FP8 weights (both layouts) and of the FP8 family (fw2, fwb share the moved body); `kernel-lab w8`
# × ROUNDS processes (w5 interleaved with the 16-bit GEMM and with w1 on natural weights); the Llama-3-8B-shaped
# runner (synthetic weights, batch 1, 2048-token prompt, 64 steps, the graph replayed 100 times after) with FP8
# weights packed (w5) and natural (w1, KERNEL_LAB_W8_LAYOUT=natural) and bf16, alternating process by process.
# Builds in .carry (`scripts/slim-carry.sh fp8_weights fp8`). $OUT gets the log and json.tgz.
set -uo pipefail
. scripts/device-log.sh "s74-w5.txt" 300
J=/tmp/s74j; mkdir -p $J
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; tar czf "$OUT/json.tgz" -C $J .; }
if [ "${TESTS:-1}" = 1 ]; then
  for t in fp8_weights fp8; do [ -x $C/tests/$t ] && run $C/tests/$t --test-threads=1; done; stamp tests
fi
for i in $(seq 1 ${ROUNDS:-3}); do
  T=200 run $C/kernel-lab w8 ${W8_SHAPES:+--shapes $W8_SHAPES} --json $J/w8-$i.json; stamp "w8 $i"
done
if [ "${LLM:-1}" = 1 ]; then
  M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
  T=120 run $C/llm --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1; stamp warm   # JIT
  declare -A V=([packed]="--fp8" [natural]="--fp8" [bf16]="")
  declare -A E=([packed]="X=1" [natural]="KERNEL_LAB_W8_LAYOUT=natural" [bf16]="X=1")
  for i in $(seq 1 ${ROUNDS:-3}); do
    for v in packed natural bf16; do
      T=120 run env ${E[$v]} KERNEL_LAB_LLM_REPLAY=100 $C/llm --model $M --synthetic-weights ${V[$v]} --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/b1:$v-$i.json
    done
    stamp "llm round $i"
  done
  python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, os, sys, statistics as st
d = {}
for f in sorted(glob.glob(sys.argv[1] + "/b1:*.json")):
    k = os.path.basename(f).rsplit("-", 1)[0]; r = json.load(open(f))
    e = d.setdefault(k, {"wall": [], "gpu": [], "tok": []})
    e["wall"].append(r["decode_ms_per_step"]); e["gpu"].append(r.get("replay_ms_per_step") or float("nan")); e["tok"].append(r["tokens"])
print("| variant | ms per step (wall) | graph replayed (GPU) |"); print("|---|---|---|")
for k, v in d.items():
    print(f"| {k} | {st.median(v['wall']):.3f} ({', '.join(f'{x:.3f}' for x in sorted(v['wall']))}) | {st.median(v['gpu']):.3f} ({', '.join(f'{x:.3f}' for x in sorted(v['gpu']))}) |")
g = lambda k, f: st.median(d[k][f]) if k in d else float("nan")
for f in ("wall", "gpu"):
    print(f"{f}: bf16 / packed {g('b1:bf16', f) / g('b1:packed', f):.3f}×, bf16 / natural {g('b1:bf16', f) / g('b1:natural', f):.3f}×, natural / packed {g('b1:natural', f) / g('b1:packed', f):.4f}")
tp, tn = d.get("b1:packed", {}).get("tok", []), d.get("b1:natural", {}).get("tok", [])
print("FP8 greedy tokens: packed identical across processes:", all(t == tp[0] for t in tp), "; packed == natural:", bool(tp) and bool(tn) and tp[0] == tn[0])
PY
fi
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, sys, statistics as st
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/w8-*.json")):
    for r in json.load(open(f))["rows"]:
        rows.setdefault(r["shape"], []).append(r)
print("| MxNxK | w5 µs | % of copy | w1 µs | w1 / w5 (interleaved) | 16-bit µs | 16-bit / w5 |"); print("|---|---|---|---|---|---|---|")
for s, rs in rows.items():
    m = lambda k: st.median(r[k] for r in rs)
    print(f"| {s} | {m('fp8_us'):.1f} | {100 * m('fp8_gbps') / m('copy_gbps'):.0f}% | {m('natural_us'):.1f} | {m('packed_speedup'):.3f} ({', '.join(f'{r['packed_speedup']:.3f}' for r in rs)}) | {m('b16_us'):.1f} | {m('speedup'):.2f} |")
PY
stamp done
