#!/usr/bin/env bash
# A short device call for the Hopper (issue 6) path alone, over the carried .carry/ (prepare-gpu-run.sh):
# the wgmma/TMA selftest, every h step on the check shapes, then v8 + h1..h6 timed at 4096³ and 8192³ with
# cuBLAS in the same run, the SASS instruction counts, and memcheck/racecheck/synccheck over the h steps.
# Each stage runs under `timeout` so that a deadlocked mbarrier wait cannot eat the whole call.
set -uo pipefail
OUT=${OUT:-/tmp/kernel-lab-out}; mkdir -p "$OUT"
C=.carry; H=${H_STEPS:-h1,h2,h3,h4,h5,h6}
{ echo "commit $(cat $C/COMMIT | tr '\n' ' ')"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv; } 2>&1 | tee "$OUT/hopper.txt"
run() { local t=$1; shift; echo "#### $*" | tee -a "$OUT/hopper.txt"; timeout -s KILL "$t" "$@" >> "$OUT/hopper.txt" 2>&1; echo "exit $?" | tee -a "$OUT/hopper.txt"; }
run 60 $C/kernel-lab --family selftest --check
run 240 $C/kernel-lab --family hgemm --steps "$H" --check
grep -E "ERROR|FAIL|selftest_wgmma|^h[1-6] " "$OUT/hopper.txt" | head -60
if [ "${TIMED:-1}" = 1 ]; then
  # REPEAT runs one after another: cuBLAS and the h steps drift together with the card's power state, so
  # the spread across runs is part of the result.
  for r in $(seq 1 ${REPEAT:-1}); do
    run 400 $C/kernel-lab --family hgemm --steps "${TIMED_STEPS:-v8,$H}" --gemm-sizes ${SIZES:-4096,8192} --reps ${REPS:-30} --json "$OUT/hopper-$r.json" --out "$OUT/report"
  done
  rm -rf "$OUT/report"
  grep -E "^(cuBLAS|v8|h[1-6]) +[0-9]+x" "$OUT/hopper.txt" | grep -v rejected | tail -40
fi
if [ "${NCU:-0}" = 1 ]; then
  # h6's epilogue is the one LSU shared-memory traffic of the Hopper steps: st.shared.b32 of the fragments
  # into SWIZZLE_128B C boxes, predicted conflict-free (layout::hopper test): at 1024³, 32 tiles × 8
  # consumer warps × 64 stores = 16384 store instructions and wavefronts, 0 conflicts.
  M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active
  run 200 ncu --clock-control none --metrics $M -k regex:"hgemm_tma_v6|hgemm_tma_v5|nvjet" --csv $C/kernel-lab --family hgemm --steps h5,h6 --check --gemm-sizes 1024,4096
  grep -E "hgemm_tma|nvjet" "$OUT/hopper.txt" | grep -E "conflicts|wavefronts|inst_executed|tensor" | awk -F'","' '{print $5, $(NF-2), $NF}' | head -40
fi
if command -v ptxas >/dev/null && command -v cuobjdump >/dev/null && [ -f $C/kernels_sm_90a.ptx ]; then
  ptxas -arch=sm_90a $C/kernels_sm_90a.ptx -o "$OUT/sm90a.cubin" && cuobjdump -sass "$OUT/sm90a.cubin" > "$OUT/sm90a.sass"
  for k in selftest_wgmma_tma hgemm_tma_v1 hgemm_tma_v2 hgemm_tma_v3 hgemm_tma_v4 hgemm_tma_v5 hgemm_tma_v6; do
    awk -v k="$k" '/Function :/ {on = ($3 == k)} on' "$OUT/sm90a.sass" > "$OUT/sass-$k.txt"
    echo "SASS $k: HGMMA $(grep -c HGMMA "$OUT/sass-$k.txt"), UTMALDG $(grep -c UTMALDG "$OUT/sass-$k.txt"), UTMASTG $(grep -c UTMASTG "$OUT/sass-$k.txt"), SYNCS $(grep -c SYNCS "$OUT/sass-$k.txt")" | tee -a "$OUT/hopper.txt"
  done
fi
if [ "${SANITIZE:-1}" = 1 ]; then
  # 1000³ (ragged edges, 32 tiles) and 3072³ (288 tiles > 132 SMs: the persistent steps loop over tiles).
  for tool in memcheck racecheck synccheck; do
    run 240 compute-sanitizer --tool $tool --error-exitcode 9 $C/kernel-lab --family hgemm --steps "$H" --check --gemm-sizes 1000,3072
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/hopper.txt" | tail -1
  done
  # racecheck again over our kernels only: the unfiltered run also instruments cuBLAS's nvjet baseline.
  run 240 compute-sanitizer --tool racecheck --kernel-name kns=hgemm_tma --error-exitcode 9 $C/kernel-lab --family hgemm --steps "$H" --check --gemm-sizes 1000,3072
  grep -E "RACECHECK SUMMARY" "$OUT/hopper.txt" | tail -1
fi
