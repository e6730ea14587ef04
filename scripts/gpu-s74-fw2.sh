#!/usr/bin/env bash
# Session 74 (issue 48): fw2 and fwb with both e4m3 operands widened by `cvt.rn.f16x2.e4m3x2` into f16 MMAs (b, this
# build) against the shifts, masks and multiply into bf16 (a: the build of c943af8, carried as .carry/kernel-lab-a).
# The fp8 GPU tests and memcheck of fw2/fwb at ragged shapes on b; then ROUNDS × (b, a) processes of fw2 and fwb on
# SHAPES, each step interleaved with cuBLASLt. $OUT gets the log and json.tgz.
set -uo pipefail
. scripts/device-log.sh "s74-fw2.txt" 300
J=/tmp/s74f; mkdir -p $J
S=${SHAPES:-1x16000x8192,4x5120x2560,1x2560x3072,8x28672x4096,16x4096x14336,1x4096x4096,12x4096x4096,2x6144x4096,16x1024x4096,8x11008x4096}
if [ -z "${SKIP_CHECKS:-}" ]; then
  run $C/tests/fp8 --test-threads=1
  T=120 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/kernel-lab --family fp8 --steps fp8:fw2,fp8:fwb --check --gemm-sizes 13x264x4096,3x392x400
fi
for i in $(seq 1 ${ROUNDS:-3}); do
  T=300 run $C/kernel-lab --family fp8 --steps fp8:fw2,fp8:fwb --gemm-sizes $S --json $J/b-$i.json
  T=300 run $C/kernel-lab-a --family fp8 --steps fp8:fw2,fp8:fwb --gemm-sizes $S --json $J/a-$i.json
done
tar czf "$OUT/json.tgz" -C $J .
for v in a b; do echo "== build $v" | tee -a "$L"; python3 scripts/s73-fp8-table.py fw2,fwb $J/$v-*.json | tee -a "$L"; done
