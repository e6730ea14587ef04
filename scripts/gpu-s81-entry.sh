#!/usr/bin/env bash
# Session 81, d28m128 and the cluster split's 5% margin (issue 48): the entry against cuBLAS, bf16.
# Part A (PARTS contains A): before (.carry/old: the build of b60cebc, session 80's final) and after, 3
# processes each alternating, on 36 shapes whose pick changed, drawn with random.seed(8181) from the
# changed picks of `shapes.py gemm --m 24,48,80,96,112,160,192,224,256 --tp 1,2,4,8`
# (results/2026-12-02-h200-session81/heldout-changed.txt).
# Part C (PARTS contains C): as A on the final choice's held-out set: 24 of its changed picks among the
# same pool not timed before (random.seed(8182)) and 3 of its 7 changed decode picks (d15 -> d28x2) of
# `--m 1,2,4,8,16` (results/2026-12-02-h200-session81/heldout-final.txt).
# Part B (PARTS contains B; SAMPLE_PROCS, default "1 2 3"): the new build over a fresh 200-shape corpus
# sample (`shapes.py gemm --sample 200 --seed 8181`), one process per entry of SAMPLE_PROCS.
set -uo pipefail
. scripts/device-log.sh s81-entry-${PARTS:-AB}.txt 200
[ -d $C/old ] && (cd $C/old && xz -d -f *.xz 2>/dev/null; chmod +x * 2>/dev/null)
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; }
# Old against new, 3 processes alternating, on the shapes of results/…/$1.txt (process seeds $2 1..3).
old_new() {
  local S=$(paste -sd, results/2026-12-02-h200-session81/$1.txt)
  for i in 1 2 3; do
    for b in old new; do
      bin=$C/kernel-lab; [ $b = old ] && bin=$C/old/kernel-lab
      echo "== set $1 process $i build $b" | tee -a "$L"
      T=120 run $bin --family gemm --dtype bf16 --reps 10 --warmup 2 --gemm-sizes $S --seed $2$i
    done
    stamp "$1 process $i"
  done
}
[[ "${PARTS:-AB}" == *A* ]] && old_new heldout-changed 81
[[ "${PARTS:-AB}" == *C* ]] && old_new heldout-final 82
if [[ "${PARTS:-AB}" == *B* ]]; then
  for i in ${SAMPLE_PROCS:-1 2 3}; do
    echo "== set sample-8181 process $i build new" | tee -a "$L"
    T=${PT:-170} run $C/kernel-lab --family gemm --dtype bf16 --reps 10 --warmup 2 --shapes-file results/2026-12-02-h200-session81/sample-200-seed8181.tsv --seed 818$i
    stamp "sample process $i"
  done
fi
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
