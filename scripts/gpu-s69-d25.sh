#!/usr/bin/env bash
# Session 69 (issue 48): step d25 (d16 with K split across CTAs). The HGEMM GPU tests (every step against
# the f64 reference, the split-K steps in any order); `kernel-lab calibrate`; every candidate timed on
# SHAPES (--autotune, for `kernel-lab rank`); ROUNDS processes of `--family hgemm --steps d16,d25,d15`
# on SHAPES against cuBLAS (TESTS=0, CAL=0, RANK=0 leave those parts out). Everything lands in $OUT/s69d25.tar.gz. Carry: `CARRY_TESTS=gpu scripts/backward-carry.sh`.
set -uo pipefail
. scripts/device-log.sh "s69d25.txt" 400
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; }
pack() { (cd "$OUT" && tar czf /tmp/s69d25.tar.gz . && rm -rf ./* && mv /tmp/s69d25.tar.gz .); }
trap pack EXIT
export XDG_CACHE_HOME=/tmp/xdg
SH=${SHAPES:?corpus tsv}
sizes=$(grep -v '^#' "$SH" | cut -f1 | paste -sd, -)
[ "${TESTS:-1}" = 1 ] && { T=300 run $C/tests/gpu every_hgemm_step split_k_steps --test-threads=1; stamp tests; }
[ "${CAL:-1}" = 1 ] && { run $C/kernel-lab calibrate --out "$OUT/cost.tsv" --samples "$OUT/cal-samples.tsv"; stamp calibrate; }
[ "${RANK:-1}" = 1 ] && { run $C/kernel-lab --family gemm --dtype f16 --autotune --tune-cache "$OUT/tune.json" --shapes-file "$SH"; stamp rank; }
for i in $(seq 1 ${ROUNDS:-3}); do
  run $C/kernel-lab --family hgemm --dtype f16 --steps d16,d25,d15 --gemm-sizes "$sizes" --json "$OUT/d25-$i.json"
  stamp "d25 round $i"
done
grep -E "^==|^exit|^t\+|test result|FAILED|panicked" "$L" | head -60
