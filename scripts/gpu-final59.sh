#!/usr/bin/env bash
# Session 59's last call: the review's commit (w1's activation loads moved back into its `load`; PTX the same but for
# register names and one branch) on the GPU — the weight-only tests (w1, fw1, fw2) and one process of `kernel-lab w8`
# and of the FP8 family at the session's decode shapes, to compare with the earlier calls. Carry: slim-carry.sh fp8_weights fp8.
set -uo pipefail
. scripts/device-log.sh final59.txt 200
export XDG_CACHE_HOME=/tmp/xdg-final
run $C/tests/fp8_weights weight_only_decode
run $C/tests/fp8 the_weight_only_routes gemm_fp8_runs
run $C/kernel-lab w8 --shapes 1x6144x4096,1x4096x4096,1x28672x4096,1x4096x14336,8x28672x4096
run $C/kernel-lab --family fp8 --gemm-sizes 1x4096x4096,8x28672x4096,16x4096x14336,12x4096x4096 --steps fw2 --seed 5999
grep -E "^==|^exit|test result|FAILED|panicked|^\| |^fw2 " "$L" | head -60
