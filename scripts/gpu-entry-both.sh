#!/usr/bin/env bash
# Issue 48, session 58: the entry point's new default (the rules, overruled by the cost model where it
# predicts ≥ 15% faster) against the rules alone and cuBLAS; the f32 corpus sample; every candidate timed
# on a held-out sample for `kernel-lab rank`. Run with carry [".carry"] after scripts/slim-carry.sh:
#   PARTS="changed f32 rank" R=results/2026-11-29-h200-session58 bash scripts/gpu-entry-both.sh
set -uo pipefail
R=${R:?results dir}
PARTS=${PARTS:-changed f32}
RUNS=${RUNS:-3}
. scripts/device-log.sh entry-both.txt 300
B=$C/kernel-lab
export XDG_CACHE_HOME=/tmp/xdg-entry-both
mkdir -p $OUT/runs
# one FILE CMD…: CMD's output in $OUT/runs/FILE, its exit code in the log.
one() { local f=$1; shift; echo "== $*" >> $L; timeout ${T:-300} "$@" > $OUT/runs/$f 2>&1; echo "exit $? ($f)" | tee -a $L; }
for p in $PARTS; do
  t0=$(date +%s)
  case $p in
    changed) # Alternating processes: the rules alone, then the new default, each shape interleaved with cuBLAS.
      for i in $(seq 1 $RUNS); do
        KERNEL_LAB_GEMM_CHOICE=rule T=120 one rule-$i.txt $B --family gemm --dtype f16,bf16 --shapes-file $R/${CHANGED:-changed-120.tsv} --seed $((5800 + i))
        KERNEL_LAB_GEMM_CHOICE=both T=120 one both-$i.txt $B --family gemm --dtype f16,bf16 --shapes-file $R/${CHANGED:-changed-120.tsv} --seed $((5810 + i))
      done ;;
    f32) for i in $(seq 1 $RUNS); do
           T=${F32_LIMIT:-150} one f32-$i.txt $B --family gemm --dtype f32 --reps 10 --warmup 2 --shapes-file $R/../2026-11-29-h200-session56/sample-120-seed5601.tsv --seed $((5820 + i))
         done ;;
    tests) run $C/tests/gpu the_gemm_ ;;
    cal) one calibrate.txt $B calibrate --out $OUT/runs/cost.tsv --samples $OUT/runs/cal-samples.tsv ;;
    f32m64) for i in $(seq 1 $RUNS); do
           T=100 one f32m64-v20-$i.txt $B --family gemm --dtype f32 --config v20 --shapes-file $R/f32-m64.tsv --seed $((5840 + i))
           T=100 one f32m64-$i.txt $B --family gemm --dtype f32 --shapes-file $R/f32-m64.tsv --seed $((5830 + i))
         done ;;
    sample) for i in $(seq 1 $RUNS); do
           T=${SAMPLE_LIMIT:-170} one sample-$i.txt $B --family gemm --dtype ${DTYPES:-f16} --shapes-file $R/../2026-11-29-h200-session56/sample-120-seed5601.tsv --seed $((5850 + i))
         done ;;
    rank) KERNEL_LAB_GEMM_CHOICE=rule T=${RANK_LIMIT:-300} one rank-run.txt $B --family gemm --dtype f16 --autotune --tune-cache $OUT/runs/tune-holdout.json --shapes-file $R/holdout-shapes.tsv
          one rank.txt $B rank --tune-cache $OUT/runs/tune-holdout.json ;;
  esac
  echo "part $p: $(( $(date +%s) - t0 )) s" | tee -a $L
done
for f in $OUT/runs/*; do python3 scripts/entry-medians.py $f > $f.medians 2>/dev/null || true; done
tar -C $OUT -cJf $OUT/runs.tar.xz runs && rm -rf $OUT/runs
