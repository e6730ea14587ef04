#!/usr/bin/env bash
# Issue 48, session 56: d24 (the ragged-weight decode step) and the d2m64 region handed to the cost model.
# Run on the device with carry [".carry"] after `scripts/slim-carry.sh gpu`:
#   PARTS="tests ragged ab m64 s200" RUNS=3 R=results/2026-11-29-h200-session56 bash scripts/gpu-ragged.sh
# tests: the GPU tests of every hgemm step (ragged N included) and d24's offset views; ragged: the entry
# point against cuBLAS on the corpus's 45 shapes with N off 8; ab: d2 against d24 on aligned decode shapes
# (the prediction: d24 within ~5% of d2 on the same bytes); m64: the entry point on 30 corpus shapes with
# M in {32, 64}; s200: session 48's 200-shape sample; s120: a fresh 120-shape sample (seed 5601). Each timed part RUNS processes.
set -uo pipefail
R=${R:?results dir}
. scripts/device-log.sh ragged.log ${T:-540}
B=$C/kernel-lab
RUNS=${RUNS:-3}
export XDG_CACHE_HOME=$OUT/xdg
for p in ${PARTS:-tests ragged ab m64}; do
  t0=$(date +%s)
  case $p in
    tests) run $C/tests/gpu --test-threads 1 every_hgemm_step d24_reads pdl_launches the_gemm_entry_point the_gemm_api split_k_steps autotune ;;
    ragged) for i in $(seq 1 $RUNS); do run $B --family gemm --dtype f16,bf16 --shapes-file $R/ragged-corpus.tsv --json $OUT/ragged-run$i.json; done ;;
    ab) run $B ab --family hgemm d2 d24 --gemm-sizes 1x4096x4096,16x4096x14336,8x11008x4096,4x28672x4096 --rounds 8 ;;
    m64) for i in $(seq 1 $RUNS); do run $B --family gemm --dtype f16,bf16 --shapes-file $R/m32-64-sample.tsv; done ;;
    s200) for i in $(seq 1 $RUNS); do run $B --family gemm --dtype f16,bf16 --shapes-file $R/../2026-11-28-h200-session48/sample-200-seed48.tsv; done ;;
    s120) for i in $(seq 1 $RUNS); do run $B --family gemm --dtype f16,bf16 --shapes-file $R/sample-120-seed5601.tsv; done ;;
  esac
  echo "part $p: $(( $(date +%s) - t0 )) s" | tee -a $OUT/parts.txt
done
