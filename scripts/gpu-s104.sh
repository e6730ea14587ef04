#!/usr/bin/env bash
# Session 104, call 1 (issues 49, 48): (1) a33 at head dim 96 (`attn_a33_d96_*`, S/O over the head's 96 dims,
# written in session 103 after its device time ran out) — the mma.sync prefill test against f64 (every a33
# entry, the d96 ones included), memcheck and racecheck of the d96 entries; (2) d96 against the d128 entry at
# D = 96 (the library's a33 kernel there), 3 processes — predicted ~0.78× the time; (3) session 99's
# prepared candidates run (`gpu-s99-candidates.sh`: every GEMM candidate on 128–512-row corpus shapes, the
# tune cache back as $OUT/tune-9901.json).
# Carry: scripts/slim-carry.sh prefill kernel-lab-llm:chunked
set -uo pipefail
. scripts/device-log.sh "s104-a33d96.txt" 300
T=300 run $C/tests/prefill prefill_on_mma_sync_matches_the_f64_reference --test-threads=1 --nocapture; stamp a33-test
for tool in memcheck racecheck; do
  T=200 run compute-sanitizer --tool $tool --kernel-name kns=attn_a33_d96 --error-exitcode 9 $C/tests/prefill prefill_on_mma_sync_matches_the_f64_reference --test-threads=1
  stamp "$tool"
done
for i in 1 2 3; do
  T=120 run $C/kernel-lab prefill --dtype bf16 --kernel attn_a33_d96_bf16 --base-kernel attn_a33_d128_bf16 --shapes 2x16x8x4096x96,8x32x32x512x96,1x32x8x8192x96 --json $OUT/a33-d96-$i.json
  T=120 run $C/kernel-lab prefill --dtype f16 --kernel attn_a33_d96_f16 --base-kernel attn_a33_d128_f16 --shapes 2x16x8x4096x96 --json $OUT/a33-d96f16-$i.json
  stamp "d96 timing $i"
done
(cd $OUT && tar -cJf a33-d96-json.tar.xz a33-*.json && rm -f a33-*.json)
SHAPES=128x1536x4096,128x32064x3072,128x3840x5120,192x1152x3072,192x2304x3072,192x3072x2048,192x3072x3072,192x4096x1024,256x16384x3072,256x2048x2048,256x2048x512,256x4096x1792,384x3584x2048,384x3584x3584,384x4096x7168,384x768x96,512x1024x3584,512x128256x3072,512x7168x4096,512x768x192
T=400 run $C/kernel-lab --family gemm --dtype bf16 --gemm-sizes $SHAPES,256x3072x8192,512x3072x4096 --autotune --tune-cache $OUT/tune-9901.json
stamp candidates
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
