#!/usr/bin/env bash
# Session 53's decode call (issues 49 and 51): the decode attention tests (ad1 and ad2, plain; memcheck
# and racecheck), the runner's kernel tests, the tiny HF checks, then the Llama-3-8B-shaped checkpoint's
# batch-1 decode (`llm --profile`, 3 processes) and batch 32 (once), `kernel-lab decode` (3 processes)
# and torch SDPA's decode peer on the same shapes. Carry: scripts/slim-carry.sh decode, plus
# .carry/tests/llm-kernels.
set -uo pipefail
. scripts/device-log.sh decode-step.txt 300
M=/tmp/llm-check/llama3-8b
run $C/tests/llm-kernels
run $C/tests/decode --test-threads=1
T=200 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/decode --test-threads=1 decode_matches
T=100 run compute-sanitizer --tool racecheck --error-exitcode 9 $C/tests/decode --test-threads=1 appended
run python3 scripts/llm-hf-check.py --llm $C/llm --out "$OUT/hf-check.md"
run python3 scripts/llm-hf-check.py --make-only --models llama3-8b
for i in 1 2 3; do
  run $C/llm --model $M --prompt-len 2048 --max-new 64 --batch 1 --profile --json "$OUT/b1-$i.json"
done
run $C/llm --model $M --prompt-len 128 --max-new 32 --batch 32 --profile --json "$OUT/b32.json"
for i in 1 2 3; do
  T=120 run $C/kernel-lab decode --json "$OUT/decode-$i.json"
done
T=120 run python3 scripts/decode-torch-peer.py --backends cudnn,flash --out "$OUT/peer-1.md"
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^\| |prompt|profile|same|differ" "$L" | head -200
