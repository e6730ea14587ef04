#!/usr/bin/env bash
# f28's first run (session 112). Carry: kernel-lab and tests/fp8 (`scripts/slim-carry.sh fp8`). `scripts/gpu-f28.sh`:
#   bench's FP8 step test (every step at 8 odd shapes against the f64 reference, f28 among them: odd tile rows put a
#   cluster rank past M); compute-sanitizer memcheck and racecheck of f28 at two odd shapes; then every few-tile
#   candidate of the choice, f26 and f28 at session 111's six few-tile shapes and sessions 110's 24 few-tile shapes
#   (scripts/fp8-f26-s111.tsv, fp8-fewtile-s110.tsv, fp8-fewtile-hold-11030.tsv), 3 processes, for f28's cost.
#   Predicted (in the step file): 256x4096x4096 12.5-13.5 us (f27n128 15.0, cuBLASLt 13.3 on an H100).
set -uo pipefail
. scripts/device-log.sh f28.txt 200
J=/tmp/f28; mkdir -p $J
T=300 run $C/tests/fp8 fp8_steps_match_the_dequantized_reference --nocapture --test-threads 1
for tool in memcheck racecheck; do
  T=200 run compute-sanitizer --tool $tool --kernel-name kns=fp8_gemm_v28 --error-exitcode 9 $C/kernel-lab --family fp8 --steps f28 --gemm-sizes 130x264x400,300x136x1024 --reps 1 --warmup 0 --out /tmp/r
done
cat scripts/fp8-f26-s111.tsv scripts/fp8-fewtile-s110.tsv scripts/fp8-fewtile-hold-11030.tsv | sort -u > $J/shapes.tsv
for i in 1 2 3; do
  T=200 run $C/kernel-lab --family fp8 --steps f28,f14,f21x2,f21x3,f21x4,f21x6,f22,f25,f26,f27n128,f27n192 --shapes-file $J/shapes.tsv \
      --reps 6 --warmup 1 --seed 1128$i --json $J/f28-p$i.json --out /tmp/r
  stamp "f28 process $i"
done
python3 scripts/bench-json-times.py fp8 $J/f28-p*.json > $J/f28-times.tsv
tar cJf $OUT/f28.tar.xz -C /tmp f28
grep -E "^exit [1-9]|panicked|ERROR SUMMARY: [1-9]|hazard" "$L" | head || true
xz -9 -f "$L"
