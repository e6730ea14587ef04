#!/usr/bin/env bash
# Session 104, call 6 (issue 51): `Model::mixed` with a prefill chunk — the mixed pass takes the running rows and
# the prompts' first C − n tokens, `extend` the rest (before: `extend` of every row, the running rows' keys
# gathered: call 3's 1.029× form). The chunked GPU test (its serving in chunks of 7 runs this path; Hopper and
# sm_90a withheld), memcheck; then 64 requests through 16 slots with --prefill-chunk 512, mixed and --separate
# alternating, 3 processes. *Predicted* (before the run): mixed 1.03–1.06× separate there (the prompts' later
# chunks run as before; the running rows ride along in the first chunk only).
# Carry: scripts/slim-carry.sh kernel-lab-llm:chunked
set -uo pipefail
. scripts/device-log.sh "s104-chunked.txt" 150
J=$OUT/json; mkdir -p $J
trap 'tar -cJf $OUT/json.tar.xz -C $OUT json && rm -rf $J' EXIT
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
run $C/tests/kernel-lab-llm-chunked --nocapture; stamp chunked-test
run env KERNEL_LAB_WITHHOLD=sm_90a $C/tests/kernel-lab-llm-chunked; stamp chunked-test-withheld
T=400 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/kernel-lab-llm-chunked; stamp memcheck
S=(--model $M --synthetic-weights --prompt-len 1024 --requests 64 --slots 16 --max-new 128 --page-size 64 --prefill-chunk 512)
for i in 1 2 3; do
  run $C/llm "${S[@]}" --json $J/serve-$i.json
  run $C/llm "${S[@]}" --separate --json $J/servesep-$i.json
  stamp "serving round $i"
done
python3 scripts/serving-medians.py $J | tee -a "$L"
grep -E "^exit [1-9]|panicked|ERROR SUMMARY" "$L" | head || true
