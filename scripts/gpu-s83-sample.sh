#!/usr/bin/env bash
# Session 83, issue 48: the GEMM entry (.carry/kernel-lab) against cuBLAS on a fresh corpus sample
# (`shapes.py gemm --sample 200 --seed 8383`), DTYPE (default bf16), 3 processes. Output packed into one archive.
set -uo pipefail
DTYPE=${DTYPE:-bf16}
. scripts/device-log.sh "s83-sample-$DTYPE.txt" 300
R=results/2026-12-02-h200-session83
xz -dc $R/sample-200-seed8383.tsv.xz > /tmp/sample-8383.tsv
for i in 1 2 3; do
  echo "== set sample-8383-$DTYPE process $i build new" | tee -a "$L"
  T=170 run $C/kernel-lab --family gemm --dtype $DTYPE --reps 10 --warmup 2 --shapes-file /tmp/sample-8383.tsv --seed 838$i
  stamp "sample process $i"
done
grep -E "^==|^exit|^t\+" "$L" | head -20
(cd "$OUT" && tar cJf /tmp/s83-sample-$DTYPE.tar.xz . && find . -type f -delete && mv /tmp/s83-sample-$DTYPE.tar.xz .)
