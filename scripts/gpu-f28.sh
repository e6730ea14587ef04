#!/usr/bin/env bash
# f28's first run (branch wip-f28-pair-tiles, session 111: built, PTX and ptxas checked, never run). Carry: kernel-lab
# and tests/fp8 of the branch (`scripts/slim-carry.sh fp8` or by hand). `scripts/gpu-f28.sh`:
#   bench's FP8 step test (every step at 8 odd shapes against the f64 reference, f28 among them: odd tile rows put a
#   cluster rank past M); compute-sanitizer memcheck and racecheck of f28 at two odd shapes; then f28 against
#   f27n128, f22 and f26 at session 111's six few-tile shapes (scripts/fp8-f26-s111.tsv), 3 processes.
#   Predicted (in the step file): 256x4096x4096 12.5-13.5 us (f27n128 15.0, cuBLASLt 13.3 on an H100).
set -uo pipefail
. scripts/device-log.sh f28.txt 200
J=/tmp/f28; mkdir -p $J
T=300 run $C/tests/fp8 fp8_steps_match_the_dequantized_reference --nocapture --test-threads 1
for tool in memcheck racecheck; do
  T=200 run compute-sanitizer --tool $tool --kernel-name kns=fp8_gemm_v28 --error-exitcode 9 $C/kernel-lab --family fp8 --steps f28 --gemm-sizes 130x264x400,300x136x1024 --reps 1 --warmup 0 --out /tmp/r
done
for i in 1 2 3; do
  T=60 run $C/kernel-lab --family fp8 --steps f28,f27n128,f22,f26 --shapes-file scripts/fp8-f26-s111.tsv --reps 6 --warmup 1 --seed 1128$i --json $J/f28-p$i.json --out /tmp/r
  stamp "f28 process $i"
done
python3 scripts/bench-json-times.py fp8 $J/f28-p*.json > $J/f28-times.tsv
tar cJf $OUT/f28.tar.xz -C /tmp f28
grep -E "^exit [1-9]|panicked|ERROR SUMMARY: [1-9]|hazard" "$L" | head || true
xz -9 -f "$L"
