#!/usr/bin/env bash
# Session 103 (issue 49; the model runner of issue 51 off Hopper): step a33, a19's prefill problem on a11's
# mma.sync tiles — the library's prefill where sm_90a does not run. One device call (~6 minutes):
#   1. the prefill GPU tests (a33 on every case of head dim 64-128 against f64, the large shape against the
#      fixed-length kernel), then again with KERNEL_LAB_WITHHOLD=sm_90a (the library's own plan is a33);
#   2. the runner's chunked test with sm_90a withheld (prefill on a33, GEMMs and decode on their sm_80 builds);
#   3. compute-sanitizer memcheck and racecheck of the a33 test;
#   4. a33 against a26 (a29 at 96, a27 at 64) by `kernel-lab prefill --kernel`, and with sm_90a withheld (the
#      library's plan a33) against the fixed-length a16/a17, 3 processes; torch's FA2
#      and cuDNN backends on the same shapes (scripts/prefill-torch-peer.py), FA2 being a33's peer.
# Carry: scripts/slim-carry.sh prefill kernel-lab-llm:chunked
set -uo pipefail
. scripts/device-log.sh "s103-a33.txt" 300
T=400 run $C/tests/prefill --test-threads=1; stamp prefill-tests
T=300 run env KERNEL_LAB_WITHHOLD=sm_90a $C/tests/prefill --test-threads=1; stamp prefill-tests-withheld
[ -x $C/tests/kernel-lab-llm-chunked ] && { T=300 run env KERNEL_LAB_WITHHOLD=sm_90a $C/tests/kernel-lab-llm-chunked --nocapture; stamp llm-chunked-withheld; }
for tool in memcheck racecheck; do
  T=300 run compute-sanitizer --tool $tool --kernel-name kns=attn_a33 --error-exitcode 9 $C/tests/prefill prefill_on_mma_sync_matches_the_f64_reference --test-threads=1
  stamp "$tool"
done
S128=1x32x8x4096x128,4x28x4x2048x128,8x32x8x512x128
for i in 1 2 3; do
  T=200 run $C/kernel-lab prefill --dtype bf16 --kernel attn_a33_d128_bf16 --base-kernel attn_a26_d128_bf16 --shapes $S128 --json $OUT/a33-d128-$i.json
  T=200 run $C/kernel-lab prefill --dtype bf16 --kernel attn_a33_d64_bf16 --base-kernel attn_a27_d64_bf16 --shapes 2x32x8x4096x64 --json $OUT/a33-d64-$i.json
  T=200 run $C/kernel-lab prefill --dtype bf16 --kernel attn_a33_d128_bf16 --base-kernel attn_a29_d96_bf16 --shapes 2x16x8x4096x96 --json $OUT/a33-d96-$i.json
  # With sm_90a withheld the library's plan is a33, timed against the fixed-length kernel off Hopper (a16 / a17 on
  # the same problem with the K/V heads repeated): the prediction says within 2% at equal lengths.
  T=200 run env KERNEL_LAB_WITHHOLD=sm_90a $C/kernel-lab prefill --dtype bf16 --shapes 1x32x8x4096x128,4x28x4x2048x128,2x32x8x4096x64 --json $OUT/a33-withheld-$i.json
  stamp "a33 timing $i"
done
T=200 run python3 scripts/prefill-torch-peer.py --shapes $S128,2x32x8x4096x64,2x16x8x4096x96 --backends flash,cudnn --out $OUT/peer.md
stamp done
(cd $OUT && tar -cJf a33-json.tar.xz a33-*.json && rm -f a33-*.json)
xz -9 -f "$L"
