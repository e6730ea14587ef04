#!/usr/bin/env bash
# Session 90, issue 48: the FP8 GPU tests on the final build, then the entry point before (.carry/old, d4da593: the
# choice without f27) and after (.carry) at the 18 shapes of two fresh corpus samples (`shapes.py gemm --sample 200`,
# seeds 9191 and 9292; scripts/s90-f27-heldout.txt) whose per-tensor pick f27 changes and no earlier call timed,
# plus 128x16384x2048 (the L2 rule of the DRAM floor), 3 processes each alternating.
set -uo pipefail
. scripts/device-log.sh s90-final.txt 300
T=300 run $C/tests/fp8 --test-threads 1
stamp tests
SHAPES=$(cat scripts/s90-f27-heldout.txt),128x16384x2048
for i in 1 2 3; do
  for b in old new; do
    bin=$C/kernel-lab; [ $b = old ] && bin=$C/old/kernel-lab
    echo "== set heldout process $i build $b" | tee -a "$L"
    T=150 run $bin --family fp8 --entry --reps 10 --warmup 2 --gemm-sizes $SHAPES --seed 906$i --json "$OUT/held-$b-p$i.json"
  done
  stamp "process $i"
done
grep -E "^==|^exit|^t\+|test result|FAILED|panicked|^summary" "$L" | head -60
(cd "$OUT" && tar cJf /tmp/final.tar.xz . && find . -type f -delete && mv /tmp/final.tar.xz .)
