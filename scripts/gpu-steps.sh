#!/usr/bin/env bash
# A short device call for some HGEMM steps alone, over the carried .carry/ (prepare-gpu-run.sh):
# STEPS (default: the Hopper steps h1..h6) on the check shapes, then TIMED_STEPS (default: v8 + STEPS)
# timed at SIZES (4096³ and 8192³) interleaved with cuBLAS, REPEAT times; the Hopper SASS instruction
# counts; memcheck/racecheck/synccheck over STEPS (SANITIZE=1); ncu of h5/h6 (NCU=1); A/B pairs (AB=…);
# ncu of the block ladder's top steps (NCU_BLOCK=1, NCU_STEPS=…).
# Each stage runs under `timeout` so that a deadlocked mbarrier wait cannot eat the whole call.
# Was gpu-hopper.sh (issue 6); `STEPS=v9,v9s4 TIMED_STEPS=v3,v4,v8,v9,v9s4` is the block ladder's run.
set -uo pipefail
OUT=${OUT:-/tmp/kernel-lab-out}; mkdir -p "$OUT"
C=.carry; H=${STEPS:-h1,h2,h3,h4,h5,h6}
{ echo "commit $(cat $C/COMMIT | tr '\n' ' ')"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv; } 2>&1 | tee "$OUT/steps.txt"
run() { local t=$1; shift; echo "#### $*" | tee -a "$OUT/steps.txt"; timeout -s KILL "$t" "$@" >> "$OUT/steps.txt" 2>&1; echo "exit $?" | tee -a "$OUT/steps.txt"; }
run 60 $C/kernel-lab --family selftest --check
run 240 $C/kernel-lab --family hgemm --steps "$H" --check
grep -E "ERROR|FAIL|selftest_wgmma|^(v[0-9s]+|h[1-6]) " "$OUT/steps.txt" | head -80
if [ "${TIMED:-1}" = 1 ]; then
  # REPEAT runs one after another: cuBLAS and the h steps drift together with the card's power state, so
  # the spread across runs is part of the result.
  for r in $(seq 1 ${REPEAT:-1}); do
    run 400 $C/kernel-lab --family hgemm --steps "${TIMED_STEPS:-v8,$H}" --gemm-sizes ${SIZES:-4096,8192} --reps ${REPS:-30} --json "$OUT/steps-$r.json" --out "$OUT/report"
  done
  rm -rf "$OUT/report"
  grep -E "^(cuBLAS|v[0-9s]+|h[1-6]) +[0-9]+x" "$OUT/steps.txt" | grep -v rejected | tail -60
fi
# AB="v3:v4 v9p:v9": each pair head to head (`kernel-lab ab`: both verified, 8 rounds of interleaved blocks).
for pair in ${AB:-}; do
  run 300 $C/kernel-lab ab --family hgemm ${pair%%:*} ${pair##*:} --rounds ${AB_ROUNDS:-8} --gemm-sizes ${AB_SIZES:-4096,8192} --json "$OUT/ab-${pair%%:*}-${pair##*:}.json"
  grep -A4 "M x N x K" "$OUT/steps.txt" | tail -4
done
if [ "${NCU_BLOCK:-0}" = 1 ]; then
  # The block ladder's top steps under ncu at 4096³: tensor pipe, shared-memory conflicts, issue stalls.
  # --page raw: one CSV row per kernel with every collected metric (WarpStateStats' stall breakdown too).
  M=sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed.sum
  timeout -s KILL 300 ncu --clock-control none --section WarpStateStats --section SpeedOfLight ${NCU_SECTIONS:-} --metrics $M --page raw --csv \
    -k regex:"hgemm_block_v(8|9|10)" $C/kernel-lab --family hgemm --steps "${NCU_STEPS:-v8,v9}" --check --gemm-sizes 4096 > "$OUT/ncu-block.csv" 2>&1
  echo "ncu (block ladder): exit $?, $(grep -c hgemm_block "$OUT/ncu-block.csv") kernel rows" | tee -a "$OUT/steps.txt"
fi
if [ "${NCU:-0}" = 1 ]; then
  # h6's epilogue is the one LSU shared-memory traffic of the Hopper steps: st.shared.b32 of the fragments
  # into SWIZZLE_128B C boxes, predicted conflict-free (layout::hopper test): at 1024³, 32 tiles × 8
  # consumer warps × 64 stores = 16384 store instructions and wavefronts, 0 conflicts.
  M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active
  run 200 ncu --clock-control none --metrics $M -k regex:"hgemm_tma_v6|hgemm_tma_v5|nvjet" --csv $C/kernel-lab --family hgemm --steps h5,h6 --check --gemm-sizes 1024,4096
  grep -E "hgemm_tma|nvjet" "$OUT/steps.txt" | grep -E "conflicts|wavefronts|inst_executed|tensor" | awk -F'","' '{print $5, $(NF-2), $NF}' | head -40
fi
if [ "${SASS:-1}" = 1 ] && command -v ptxas >/dev/null && command -v cuobjdump >/dev/null && [ -f $C/kernels_sm_90a.ptx ]; then
  ptxas -arch=sm_90a $C/kernels_sm_90a.ptx -o "$OUT/sm90a.cubin" && cuobjdump -sass "$OUT/sm90a.cubin" > "$OUT/sm90a.sass"
  for k in selftest_wgmma_tma hgemm_tma_v1 hgemm_tma_v2 hgemm_tma_v3 hgemm_tma_v4 hgemm_tma_v5 hgemm_tma_v6; do
    awk -v k="$k" '/Function :/ {on = ($3 == k)} on' "$OUT/sm90a.sass" > "$OUT/sass-$k.txt"
    echo "SASS $k: HGMMA $(grep -c HGMMA "$OUT/sass-$k.txt"), UTMALDG $(grep -c UTMALDG "$OUT/sass-$k.txt"), UTMASTG $(grep -c UTMASTG "$OUT/sass-$k.txt"), SYNCS $(grep -c SYNCS "$OUT/sass-$k.txt")" | tee -a "$OUT/steps.txt"
  done
fi
if [ "${SANITIZE:-1}" = 1 ]; then
  # 1000³ (ragged edges, 32 tiles), 3072³ (288 tiles > 132 SMs: the persistent steps loop over tiles) and
  # 300×520×192 (interior and edge blocks in one launch: v9's two loops).
  for tool in memcheck racecheck synccheck; do
    run 240 compute-sanitizer --tool $tool --error-exitcode 9 $C/kernel-lab --family hgemm --steps "$H" --check --gemm-sizes ${SAN_SIZES:-1000,3072,300x520x192}
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/steps.txt" | tail -1
  done
  echo "racecheck hazards reported in our kernels (hgemm_*): $(grep -E "Race reported" "$OUT/steps.txt" | grep -c "at hgemm_")" | tee -a "$OUT/steps.txt"
  # (A racecheck filtered to our kernels with --kernel-name kns=hgemm_ crashed inside cuBLAS under the
  # sanitizer in two sessions; the unfiltered run above names the kernel of every hazard instead.)
fi
