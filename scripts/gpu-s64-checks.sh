#!/usr/bin/env bash
# Session 64, one call: (issue 49) racecheck of the prefill f64 cases (a26 the default since session 63),
# a26 at D = 96 (Phi-3's 32/32 heads and a grouped 32/8) and the variable-length batch (16 sequences of
# 100–8192 tokens against equal lengths of the same work), 3 processes each, torch SDPA (cuDNN and flash)
# after each; (issue 51) where the FP8 runner's batch-1 step goes: the step whole and with launches left
# out (KERNEL_LAB_LLM_ABLATE, timing only), the bf16 step beside it, 3 processes.
# Carry: scripts/slim-carry.sh prefill.
set -uo pipefail
. scripts/device-log.sh s64-checks.txt 120
T=170 run compute-sanitizer --tool racecheck --racecheck-report hazard --error-exitcode 9 $C/tests/prefill --test-threads=1 prefill_matches_the_f64
SHAPES=${SHAPES:-1x32x32x4096x96,1x32x8x4096x96}
for i in 1 2 3; do
  run $C/kernel-lab prefill --shapes "$SHAPES" --varlen 16:100-8192:$i --json "$OUT/prefill-$i.json"
  lens=$(python3 -c "import json; print(','.join(map(str, json.load(open('$OUT/prefill-$i.json'))['varlen'])))" 2>/dev/null)
  run python3 scripts/prefill-torch-peer.py --shapes "$SHAPES" --backends cudnn,flash --sustain-ms 1000 --varlen-lens "$lens" --out "$OUT/peer-$i.md"
done
(cd "$OUT" && tar cJf prefill-reports.tar.xz prefill-*.json peer-*.md 2>/dev/null && rm -f prefill-*.json peer-*.md)
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
J=/tmp/fp8abl; mkdir -p $J
run $C/llm --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1   # warm: JIT into the cache
for i in 1 2 3; do
  T=90 run $C/llm --model $M --synthetic-weights --prompt-len 512 --max-new 64 --batch 1 --ignore-eos --json $J/bf16:none-$i.json
  for a in none attn o qkv gu down qkv,o,gu,down; do
    T=90 run env KERNEL_LAB_LLM_ABLATE=$a $C/llm --model $M --synthetic-weights --fp8 --prompt-len 512 --max-new 64 --batch 1 --ignore-eos --json $J/fp8:$a-$i.json
  done
done
tar czf "$OUT/fp8-ablate-json.tar.gz" -C $J .
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, os, sys, statistics as st
d = {}
for f in glob.glob(sys.argv[1] + "/*.json"):
    d.setdefault(os.path.basename(f).rsplit("-", 1)[0], []).append(json.load(open(f))["decode_ms_per_step"])
print("| build: left out | ms per step (median of 3 processes) | saved µs a layer |"); print("|---|---|---|")
for a, v in sorted(d.items()):
    base = st.median(d[a.split(":")[0] + ":none"]); m = st.median(v)
    print(f"| {a} | {m:.3f} ({', '.join(f'{x:.3f}' for x in sorted(v))}) | {1000*(base-m)/32:.2f} |")
print(f"bf16 / fp8 whole step: {st.median(d['bf16:none']) / st.median(d['fp8:none']):.3f}")
PY
grep -E "^==|^exit [1-9]|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^\| |SKIPPED|varlen" "$L" | grep -v "^== env\|^== .carry/llm" | head -120 || true
