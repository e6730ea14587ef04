#!/usr/bin/env bash
# Session 82, one-unit CTAs' ends serial to their rounds in the GEMM cost model, d28/h8 refitted, the
# cluster split's whole-K margin 15% -> 10% (issue 48), and what it does to the runner (issue 51).
# Part E (PARTS contains E): the entry against cuBLAS, bf16, before (.carry/old: the build of dff4d0a,
# session 81's final) and after, 3 processes each alternating, on 55 shapes whose pick changed: up to 4
# of each (old, new) pick pair among the changed bf16 picks of `shapes.py gemm` and `shapes.py gemm --tp
# 4,8 --m 1,2,3,4,6,8,12,16,24,32,48,64,96,128,192,256,384,512,768,1024,2048`, drawn with
# random.seed(8282) (results/2026-12-02-h200-session82/heldout-changed.txt).
# Part S (PARTS contains S; SAMPLE_PROCS, default "1 2 3"): the new build over a fresh 200-shape corpus
# sample (`shapes.py gemm --sample 200 --seed 8282`), one process per entry of SAMPLE_PROCS.
# Part F (PARTS contains F): part S in f16, 3 processes.
# Part T (PARTS contains T): every candidate timed (--autotune, one process) on the sample's 14 shapes under
# 0.90x cuBLAS in part S (results/2026-12-02-h200-session82/sample-under-0.90.txt), bf16.
# Part R (PARTS contains R): the Llama-3-8B-shaped runner at batch 1 (synthetic weights, 2048-token
# prompt, 64 steps, the graph replayed 100 times), before and after, 3 processes each alternating.
set -uo pipefail
. scripts/device-log.sh s82-heldout-${PARTS:-ER}.txt 200
[ -d $C/old ] && (cd $C/old && xz -d -f *.xz 2>/dev/null; chmod +x * 2>/dev/null)
R=results/2026-12-02-h200-session82
xz -dc $R/sample-200-seed8282.tsv.xz > /tmp/sample-8282.tsv
[[ "${PARTS:-ER}" == *E* ]] && gemm_old_new heldout-changed 82 bf16 --gemm-sizes $(paste -sd, $R/heldout-changed.txt)
if [[ "${PARTS:-ER}" == *S* ]]; then
  for i in ${SAMPLE_PROCS:-1 2 3}; do
    echo "== set sample-8282 process $i build new" | tee -a "$L"
    T=${PT:-170} run $C/kernel-lab --family gemm --dtype bf16 --reps 10 --warmup 2 --shapes-file /tmp/sample-8282.tsv --seed 828$i
    stamp "sample process $i"
  done
fi
if [[ "${PARTS:-ER}" == *F* ]]; then
  for i in 1 2 3; do
    echo "== set sample-8282-f16 process $i build new" | tee -a "$L"
    T=${PT:-170} run $C/kernel-lab --family gemm --dtype f16 --reps 10 --warmup 2 --shapes-file /tmp/sample-8282.tsv --seed 828$i
    stamp "f16 sample process $i"
  done
fi
if [[ "${PARTS:-ER}" == *T* ]]; then
  echo "== set under-0.90 autotune build new" | tee -a "$L"
  T=280 run $C/kernel-lab --family gemm --dtype bf16 --gemm-sizes $(paste -sd, $R/sample-under-0.90.txt) --autotune --tune-cache $OUT/tune-under.json
  stamp "autotune"
fi
[[ "${PARTS:-ER}" == *R* ]] && [ -x $C/old/llm ] && runner_old_new 1
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
