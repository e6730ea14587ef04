#!/usr/bin/env bash
# Runs on the GPU machine over the carried .carry/ (see prepare-gpu-run.sh): tests, the suite's check
# and timed runs, compute-sanitizer, ncu's shared-memory counters of the replay patterns (compared with
# the bank model) and of the reduce kernels (compared with their traces), and the criterion bench.
# Everything lands in $OUT; the last thing printed is the suite's table.
set -uo pipefail
OUT=${OUT:-/tmp/kernel-lab-out}; mkdir -p "$OUT"
C=.carry
{ echo "commit $(cat $C/COMMIT | tr '\n' ' ')"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } 2>&1 | tee "$OUT/tests.txt"
status=0
echo "== tests ==" | tee -a "$OUT/tests.txt"
for t in $C/tests/*; do
  echo "-- $(basename $t)" >> "$OUT/tests.txt"
  "$t" --test-threads=1 >> "$OUT/tests.txt" 2>&1 || { status=1; echo "FAILED: $t" | tee -a "$OUT/tests.txt"; }
done
grep -E "test result|FAILED|SKIPPED|panicked" "$OUT/tests.txt"
echo "== check ==" ; { echo "#### kernel-lab --check"; $C/kernel-lab --check 2>/dev/null; } >> "$OUT/tests.txt" || status=1
# Bank-model check: every replay pattern under ncu, compared with the model right here.
ncu --clock-control none --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum -k regex:bank_replay --csv $C/kernel-lab layout bankcheck --run > "$OUT/ncu-bankcheck.csv" 2>&1
$C/kernel-lab layout bankcheck --compare "$OUT/ncu-bankcheck.csv" > "$OUT/bankcheck.md" 2>&1; tail -1 "$OUT/bankcheck.md"; grep -F "**NO**" "$OUT/bankcheck.md"
grep -E "FAIL|ERROR| NO |skipped" "$OUT/tests.txt" | head -20
: > "$OUT/sanitize.txt"
for tool in memcheck racecheck synccheck; do
  echo "#### compute-sanitizer --tool $tool" >> "$OUT/sanitize.txt"
  compute-sanitizer --tool $tool --error-exitcode 9 $C/kernel-lab --family reduce,selftest,sgemm,hgemm-warp,hgemm --check --sizes 1000,4097,65543 --gemm-sizes 1000 >> "$OUT/sanitize.txt" 2>&1
  echo "compute-sanitizer $tool: exit $?" | tee -a "$OUT/sanitize.txt"
done
grep -E "SUMMARY|exit" "$OUT/sanitize.txt"
M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
ncu --clock-control none --metrics $M -k regex:reduce_v --csv $C/kernel-lab --family reduce --check --sizes 2^20 > "$OUT/ncu-reduce.csv" 2>&1
echo "ncu reduce: exit $? ($(grep -c reduce_v "$OUT/ncu-reduce.csv") metric rows)"
ncu --clock-control none --metrics $M -k regex:sgemm_v --csv $C/kernel-lab --family sgemm --check --gemm-sizes 1024 >> "$OUT/ncu-reduce.csv" 2>&1
echo "ncu sgemm: exit $?"
ncu --clock-control none --metrics $M -k regex:selftest_mma --csv $C/kernel-lab --family selftest --check >> "$OUT/ncu-reduce.csv" 2>&1
echo "ncu selftest (seed 001 v4 vs v5 tiles): exit $?"
ncu --clock-control none --metrics $M -k regex:hgemm_block --csv $C/kernel-lab --family hgemm --check --gemm-sizes 1024 >> "$OUT/ncu-reduce.csv" 2>&1
$C/kernel-lab layout trace --hgemm 1024x1024x1024 --ncu "$OUT/ncu-reduce.csv" >> "$OUT/bankcheck.md" 2>&1
$C/kernel-lab layout trace --gemm 1024x1024x1024 --ncu "$OUT/ncu-reduce.csv" >> "$OUT/bankcheck.md" 2>&1
ncu --clock-control none --metrics $M -k regex:hgemm_warp --csv $C/kernel-lab --family hgemm-warp --check >> "$OUT/ncu-reduce.csv" 2>&1
$C/kernel-lab layout trace --hgemm-warp --ncu "$OUT/ncu-reduce.csv" >> "$OUT/bankcheck.md" 2>&1; tail -8 "$OUT/bankcheck.md"
$C/kernel-lab layout trace --n 2^20 --ncu "$OUT/ncu-reduce.csv" >> "$OUT/bankcheck.md" 2>&1
if [ -x $C/bench-reduce ] && [ "${SKIP_BENCH:-0}" != 1 ]; then
  $C/bench-reduce --bench --warm-up-time 0.3 --measurement-time 1 --noplot > "$OUT/bench.txt" 2>&1; echo "cargo bench (reduce): exit $?"
fi
# Issue 6: the Hopper steps' SASS must show HGMMA and UTMALDG (needs the toolkit's ptxas and cuobjdump there).
if command -v ptxas >/dev/null && command -v cuobjdump >/dev/null && [ -f $C/kernels_sm_90a.ptx ]; then
  ptxas -arch=sm_90a $C/kernels_sm_90a.ptx -o "$OUT/sm90a.cubin" && cuobjdump -sass "$OUT/sm90a.cubin" > "$OUT/sm90a.sass"
  for k in selftest_wgmma_tma hgemm_tma_v1 hgemm_tma_v2 hgemm_tma_v3 hgemm_tma_v4 hgemm_tma_v5 hgemm_tma_v6; do
    awk -v k="$k" '/Function :/ {on = ($3 == k)} on' "$OUT/sm90a.sass" > "$OUT/sass-$k.txt"
    echo "SASS $k: HGMMA $(grep -c HGMMA "$OUT/sass-$k.txt"), UTMALDG $(grep -c UTMALDG "$OUT/sass-$k.txt"), SYNCS $(grep -c SYNCS "$OUT/sass-$k.txt")"
  done
else
  echo "SASS check skipped: ptxas/cuobjdump not on PATH"
fi
echo "== suite ==" ; $C/kernel-lab --json "$OUT/suite.json" > "$OUT/suite.txt" 2>/dev/null || status=1
cat "$OUT/suite.txt"
exit $status
