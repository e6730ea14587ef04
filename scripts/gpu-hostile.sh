#!/usr/bin/env bash
# Issue 18's GPU list: each hostile run as a user would type it, with its exit code, wall time and the
# lines that say what happened. Everything lands in $OUT/hostile.txt. Run after prepare-gpu-run.sh.
set -uo pipefail
OUT=${OUT:-/tmp/kernel-lab-out}; mkdir -p "$OUT"
C=.carry; K=$C/kernel-lab; H="$OUT/hostile.txt"
{ echo "commit $(cat $C/COMMIT | tr '\n' ' ')"; date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv,noheader; } > "$H"
# run TITLE CMD...: runs CMD, records exit code, wall time (ms, no bc on the device) and the output's
# verdict lines.
run() {
  local title=$1; shift
  echo "== $title: $*" >> "$H"
  local t0=$(date +%s%N)
  "$@" > "$OUT/last.txt" 2>&1; local rc=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  grep -vE "^\s*$|report:|^GPU:|wrote " "$OUT/last.txt" | grep -E "error|refused|rejected|skipped|FAILED|ERROR|not run|^(v[0-9]+|h[0-9]+|gemm|cuBLAS|copy|h6|v10)|\+pad" | head -40 >> "$H"
  echo "-> exit $rc, $ms ms" >> "$H"
}
run "beyond memory (issue: silent 90 s)" $K --check --family sgemm --steps v11 --gemm-sizes 131072x131072x131072
run "20 GB of C, verified on the GPU (issue: silent 90 s)" $K --check --family hgemm --steps h6,v10 --gemm-sizes 100000x100000x64
run "reduce 2^33 (issue: refused)" $K --check --family reduce --sizes 2^33
run "reduce 2^32+3, timed" $K --family reduce --steps v6,v7 --sizes 4294967299 --reps 10
run "any K and N through the entry point" $K --check --family gemm --gemm-sizes 1x1x1,5x7x1,1x4096x4095,4095x4095x4095,97x89x83
run "K = 2^20 (huge K)" $K --check --family hgemm --steps h6,v10,v1 --gemm-sizes 64x64x1048576
run "K = 2^20 + 1" $K --check --family hgemm --gemm-sizes 64x64x1048577
run "zero size (reduce)" $K --check --family reduce --sizes 0
run "zero size (gemm)" $K --check --family gemm --gemm-sizes 0x4x4
KERNEL_LAB_WITHHOLD=sm_90a run "forced --config h6 on a GPU without sm_90a" $K --check --family gemm --config h6 --gemm-sizes 64x64x64
echo "== two suite processes at once" >> "$H"
( $K --check --family reduce,hgemm,gemm --gemm-sizes 1000,257x263x269 > "$OUT/conc1.txt" 2>&1; echo "first: exit $?" >> "$H" ) &
( $K --check --family reduce,hgemm,gemm --gemm-sizes 1000,257x263x269 > "$OUT/conc2.txt" 2>&1; echo "second: exit $?" >> "$H" ) &
wait
echo "== SIGINT 3 s into a timed sgemm run at 8192^3 (every step, naive v0 first: tens of seconds)" >> "$H"
timeout -s INT 3 $K --family sgemm --gemm-sizes 8192 > /dev/null 2>&1; echo "-> exit $? (124: timeout sent SIGINT and the run stopped)" >> "$H"
sleep 1; echo "GPU processes left: $(nvidia-smi --query-compute-apps=pid --format=csv,noheader | wc -l)" >> "$H"
run "after SIGINT, a fresh run" $K --check --family hgemm --steps h6 --gemm-sizes 1000
echo "== sm_90a withheld (KERNEL_LAB_WITHHOLD=sm_90a): a GPU without sm_90a" >> "$H"
KERNEL_LAB_WITHHOLD=sm_90a run "suite, --check" $K --check --family selftest,hgemm,gemm --gemm-sizes 1000,4095x4095x4095
KERNEL_LAB_WITHHOLD=sm_90a $C/tests/gpu --test-threads=1 > "$OUT/withheld-gpu-tests.txt" 2>&1; echo "GPU tests with sm_90a withheld: exit $?" >> "$H"
grep -E "test result|FAILED|panicked" "$OUT/withheld-gpu-tests.txt" >> "$H"
grep -c "sm_90a" "$OUT/withheld-gpu-tests.txt" | sed 's/^/lines naming sm_90a: /' >> "$H"
rm -f "$OUT/last.txt"
cat "$H"
