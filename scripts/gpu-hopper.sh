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
  run 400 $C/kernel-lab --family hgemm --steps "v8,$H" --gemm-sizes ${SIZES:-4096,8192} --reps ${REPS:-30} --json "$OUT/hopper.json" --out "$OUT/report"
  sed -n '/^step/,$p' "$OUT/hopper.txt" | tail -20
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
