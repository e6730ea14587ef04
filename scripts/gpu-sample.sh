#!/usr/bin/env bash
# The GEMM entry (.carry/kernel-lab) against cuBLAS on a committed corpus sample (issue 48), 3 processes:
#   SAMPLE  the sample's .tsv.xz (`shapes.py gemm --sample 200 --seed S`, as a session committed it)
#   SEED    its seed (names the log and seeds the processes' data: SEED1..SEED3)
#   FROM/TO its lines to run (default all), DTYPE (default bf16)
# Sessions 96 and 98 ran it as scripts of their own (`git show a2d6ab0:scripts/gpu-s96-sample.sh`,
# `git show 2661f2b3:scripts/gpu-s98-sample.sh`: SAMPLE/SEED of their folders, session 98 with TO=100).
set -uo pipefail
DTYPE=${DTYPE:-bf16}; FROM=${FROM:-1}; TO=${TO:-100000}
: "${SAMPLE:?SAMPLE=results/<run>/sample-200-seedS.tsv.xz}" "${SEED:?SEED=the seed of the sample}"
. scripts/device-log.sh "sample-$SEED-$DTYPE-$FROM.txt" 300
xz -dc "$SAMPLE" | sed -n "${FROM},${TO}p" > /tmp/sample-$SEED.tsv
for i in 1 2 3; do
  echo "== set sample-$SEED-$DTYPE process $i build new" | tee -a "$L"
  T=190 run $C/kernel-lab --family gemm --dtype $DTYPE --reps 10 --warmup 2 --shapes-file /tmp/sample-$SEED.tsv --seed $SEED$i
  stamp "sample process $i"
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
