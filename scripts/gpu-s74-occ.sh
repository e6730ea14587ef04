#!/usr/bin/env bash
# (History: the three-blocks-a-SM build this script ran is commit c943af8; its code was reverted in the next commit.)
# Session 74 (issue 51): w5 with three blocks a SM (t8/t16 at 80 registers, splits filling three a SM) against w5 with
# two (the build of f0a904d, carried as .carry/kernel-lab-a and llm-a): the FP8-weights GPU tests of the new build,
# `kernel-lab w8` A/B × ROUNDS processes alternating, the FP8 runner (Llama-3-8B shape, batch 1) A/B × ROUNDS.
# Builds in .carry (`scripts/slim-carry.sh fp8_weights` plus the two -a binaries). $OUT gets the log and json.tgz.
set -uo pipefail
. scripts/device-log.sh "s74-occ.txt" 300
J=/tmp/s74o; mkdir -p $J
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; tar czf "$OUT/json.tgz" -C $J .; }
[ -x $C/tests/fp8_weights ] && run $C/tests/fp8_weights --test-threads=1; stamp tests
for i in $(seq 1 ${ROUNDS:-3}); do
  T=200 run $C/kernel-lab w8 --json $J/w8-b-$i.json
  T=200 run $C/kernel-lab-a w8 --json $J/w8-a-$i.json; stamp "w8 $i"
done
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
T=120 run $C/llm --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1
T=120 run $C/llm-a --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1; stamp warm
for i in $(seq 1 ${ROUNDS:-3}); do
  for v in b a; do
    exe=$C/llm; [ $v = a ] && exe=$C/llm-a
    T=120 run env KERNEL_LAB_LLM_REPLAY=100 $exe --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/fp8-$v-$i.json
  done
  stamp "llm round $i"
done
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, sys, statistics as st
d = sys.argv[1]
for v in ("a", "b"):
    r = [json.load(open(f)) for f in sorted(glob.glob(f"{d}/fp8-{v}-*.json"))]
    print(f"runner FP8 {v}: wall {st.median(x['decode_ms_per_step'] for x in r):.3f} ({', '.join(f'{x['decode_ms_per_step']:.3f}' for x in r)}), GPU {st.median(x['replay_ms_per_step'] for x in r):.3f} ({', '.join(f'{x['replay_ms_per_step']:.3f}' for x in r)})")
rows = {}
for v in ("a", "b"):
    for f in sorted(glob.glob(f"{d}/w8-{v}-*.json")):
        for x in json.load(open(f))["rows"]:
            rows.setdefault(x["shape"], {}).setdefault(v, []).append(x)
print("| MxNxK | w5 two a SM: µs (label) | three a SM: µs (label) | two / three | % of copy (three) |"); print("|---|---|---|---|---|")
for s, e in rows.items():
    m = lambda v, k: st.median(x[k] for x in e[v])
    print(f"| {s} | {m('a', 'fp8_us'):.1f} ({e['a'][0]['fp8']}) | {m('b', 'fp8_us'):.1f} ({e['b'][0]['fp8']}) | {m('a', 'fp8_us') / m('b', 'fp8_us'):.3f} | {100 * m('b', 'fp8_gbps') / m('b', 'copy_gbps'):.0f}% |")
PY
stamp done
