#!/usr/bin/env bash
# Issue 48, session 58: FP8 per tensor at decode through fw1 (A widened, w1 streams B) and fw2 (A widened in w1's registers) against f14 and
# cuBLASLt. Run with carry [".carry"] after `scripts/slim-carry.sh fp8`:
#   RUNS=3 bash scripts/gpu-fw1.sh
set -uo pipefail
RUNS=${RUNS:-3}
SHAPES=${SHAPES:-1x16000x8192,4x5120x2560,1x2560x3072,1x4096x4096,2x6144x4096,8x28672x4096,16x4096x14336,1x128256x4096}
. scripts/device-log.sh fw1.txt 300
B=$C/kernel-lab
export XDG_CACHE_HOME=/tmp/xdg-fw1
mkdir -p $OUT/runs
T=200 run $C/tests/fp8 fw1_and_fw2 gemm_fp8_runs autotune_picks
T=200 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/fp8 fw1_and_fw2
for i in $(seq 1 $RUNS); do
  echo "== family run $i" >> $L
  timeout 150 $B --family fp8 --gemm-sizes $SHAPES --steps f14,fw1,fw2 --seed $((5860 + i)) > $OUT/runs/fp8-$i.txt 2>&1
  echo "exit $? (fp8-$i)" | tee -a $L
done
tar -C $OUT -cJf $OUT/runs.tar.xz runs && rm -rf $OUT/runs
