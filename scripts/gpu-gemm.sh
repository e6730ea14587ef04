#!/usr/bin/env bash
# The GEMM entry point's GPU run (issue 15), over the carried .carry/ (scripts/prepare-gpu-run.sh): the
# HGEMM and entry-point GPU tests, `--check` of the hgemm steps named in CHECK_STEPS and of the `gemm`
# family, compute-sanitizer on the new steps, SASS and ptxas of the Hopper HGEMM steps, the steps
# head to head at prefill shapes (STEP_SIZES, interleaved with cuBLAS), `ncu` of one launch per step
# in NCU_STEPS, and the `gemm` family's sweep in f16 and bf16. TEST_FILTER selects GPU tests (" ":
# all); DECODE_CONFIG adds the `gemm` family forced to that step at DECODE_SIZES. Each stage has a time limit, so a hang
# ends that stage only. STAGES (default "tests check sanitize sass steps ncu sweep") picks stages;
# SASS_KERNELS / PTXAS_KERNELS (a regex) / NCU_REGEX name the kernels those stages look at. The sweep
# stage also logs the SM clock and power every 20 ms (gemm-sweep-clocks.csv; scripts/sweep-clocks.py reads it).
set -uo pipefail
OUT=${OUT:-/tmp/kernel-lab-out}; mkdir -p "$OUT"
C=.carry
STAGES=${STAGES:-tests check sanitize sass steps ncu sweep}
CHECK_STEPS=${CHECK_STEPS:-hgemm:h6,h7,h8x2,h8x4,h8x8,h6-bf16,h8x2-bf16,h8x4-bf16,h8x8-bf16}
NEW_STEPS=${NEW_STEPS:-hgemm:h8x2,h8x4,h8x8}
STEPS=${STEPS:-hgemm:h6,h7,h8x2,h8x4,h8x8}
STEP_SIZES=${STEP_SIZES:-64x4096x4096,128x4096x4096,256x4096x4096,512x4096x4096,256x4096x14336,128x14336x4096,1000x1000x1000,1024x1024x1024}
NCU_STEPS=${NCU_STEPS:-hgemm:h6,h8x8}
NCU_SIZE=${NCU_SIZE:-128x4096x4096}
has() { [[ " $STAGES " == *" $1 "* ]]; }
{ echo "commit $(cat $C/COMMIT | tr '\n' ' ')"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } 2>&1 | tee "$OUT/gemm.txt"
status=0
if has tests; then
  echo "== tests ==" | tee -a "$OUT/gemm.txt"
  timeout 300 $C/tests/gpu --test-threads=1 ${TEST_FILTER:-hgemm gemm split_k} >> "$OUT/gemm.txt" 2>&1 || { status=1; echo "FAILED: gpu tests" | tee -a "$OUT/gemm.txt"; }
  grep -E "^test |test result|FAILED|SKIPPED|panicked" "$OUT/gemm.txt"
fi
if has check; then
  echo "== check ==" | tee -a "$OUT/gemm.txt"
  # CHECK_STEPS=all: every hgemm step.
  check_args=(); [ "$CHECK_STEPS" = all ] || check_args=(--steps "$CHECK_STEPS")
  timeout 300 $C/kernel-lab --check --family hgemm "${check_args[@]}" > "$OUT/check.txt" 2>&1; echo "kernel-lab --check --family hgemm --steps $CHECK_STEPS: exit $?" | tee -a "$OUT/gemm.txt"
  timeout 300 $C/kernel-lab --check --family gemm >> "$OUT/check.txt" 2>&1; echo "kernel-lab --check --family gemm: exit $?" | tee -a "$OUT/gemm.txt"
  grep -iE "fail|error|mismatch|unwritten" "$OUT/check.txt" | head -20
fi
if has sanitize && command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck synccheck; do
    timeout 240 compute-sanitizer --tool $tool $C/kernel-lab --check --family hgemm --steps "$NEW_STEPS" --gemm-sizes ${SAN_SIZES:-300x520x1024,128x1024x2048,130x264x72} > "$OUT/san-$tool.txt" 2>&1
    echo "compute-sanitizer $tool: exit $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san-$tool.txt" | tr '\n' ' ')" | tee -a "$OUT/gemm.txt"
  done
  tar czf "$OUT/sanitizer.tgz" -C "$OUT" san-memcheck.txt san-racecheck.txt san-synccheck.txt && rm -f "$OUT"/san-*.txt
fi
if has sass && command -v ptxas >/dev/null && command -v cuobjdump >/dev/null; then
  ptxas -arch=sm_90a -v $C/kernels_sm_90a.ptx -o "$OUT/sm90a.cubin" 2> "$OUT/ptxas.txt" && cuobjdump -sass "$OUT/sm90a.cubin" > "$OUT/sm90a.sass"
  for k in ${SASS_KERNELS:-hgemm_tma_v6 hgemm_tma_v7 hgemm_tma_v8_x2 hgemm_tma_v8_x4 hgemm_tma_v8_x8}; do
    awk -v k="$k" '/Function :/ {on = ($3 == k)} on' "$OUT/sm90a.sass" > "$OUT/sass-$k.txt"
    echo "SASS $k: $(grep -oE 'HGMMA\.[0-9A-Za-z.]+' "$OUT/sass-$k.txt" | sort | uniq -c | tr '\n' ' '), UTMALDG $(grep -c UTMALDG "$OUT/sass-$k.txt"), LD cluster $(grep -cE 'LD\.E.*|LDS' "$OUT/sass-$k.txt"), local LDL/STL $(grep -cE 'LDL|STL' "$OUT/sass-$k.txt")" | tee -a "$OUT/gemm.txt"
  done
  grep -E "C75|${PTXAS_KERNELS:-hgemm_tma_v[678]}" -A3 "$OUT/ptxas.txt" | grep -E "C75|Compiling|registers|spill" | tee -a "$OUT/gemm.txt"; rm -f "$OUT/ptxas.txt"
  tar czf "$OUT/sass-gemm.tgz" -C "$OUT" $(cd "$OUT" && ls sass-*.txt); rm -f "$OUT"/sass-*.txt "$OUT/sm90a.sass" "$OUT/sm90a.cubin"
fi
if has steps; then
  echo "== steps head to head ==" | tee -a "$OUT/gemm.txt"
  timeout 300 $C/kernel-lab --family hgemm --steps "$STEPS" --gemm-sizes "$STEP_SIZES" --json "$OUT/steps.json" --out "$OUT/report" > "$OUT/steps.txt" 2>&1; echo "kernel-lab --family hgemm --steps $STEPS: exit $?" | tee -a "$OUT/gemm.txt"
  cat "$OUT/steps.txt"; rm -rf "$OUT/report"
  if [ -n "${DECODE_CONFIG:-}" ]; then
    timeout 200 $C/kernel-lab --family gemm --config "$DECODE_CONFIG" --gemm-sizes ${DECODE_SIZES:-16x4096x4096,32x4096x4096,64x4096x4096} --out "$OUT/report" > "$OUT/decode-config.txt" 2>&1
    echo "kernel-lab --family gemm --config $DECODE_CONFIG: exit $?" | tee -a "$OUT/gemm.txt"; cat "$OUT/decode-config.txt"; rm -rf "$OUT/report"
  fi
fi
if has ncu && command -v ncu >/dev/null; then
  echo "== ncu ($NCU_SIZE) ==" | tee -a "$OUT/gemm.txt"
  timeout 240 ncu --clock-control none --kernel-name regex:"${NCU_REGEX:-hgemm_tma}" --launch-count ${NCU_LAUNCHES:-4} \
    --metrics gpu__time_duration.sum,sm__cycles_active.avg,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,lts__t_bytes.sum,dram__bytes_read.sum,launch__cluster_dim_x,launch__grid_size \
    $C/kernel-lab --check --family hgemm --steps "$NCU_STEPS" --gemm-sizes "$NCU_SIZE" > "$OUT/ncu.txt" 2>&1
  echo "ncu: exit $?" | tee -a "$OUT/gemm.txt"; grep -vE "^==PROF==|^==WARNING==" "$OUT/ncu.txt" | grep -E "hgemm_|nvjet|duration|cycles_active|pct|shared|bytes|cluster|grid_size" | head -${NCU_LINES:-60}
fi
if has sweep; then
  echo "== gemm sweep ==" | tee -a "$OUT/gemm.txt"
  # The SM clock, power and throttle reasons every 20 ms beside the sweep (read only): session 21
  # saw the same shape at 83% and 117% of cuBLAS in different sweeps; this says which regime ran.
  clocks=""
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 20 > "$OUT/gemm-sweep-clocks.csv" 2>&1 &
    clocks=$!
  fi
  timeout 420 $C/kernel-lab --family gemm ${SWEEP_ARGS:-} --json "$OUT/gemm-sweep.json" --out "$OUT/report" > "$OUT/gemm-sweep.txt" 2>&1; echo "kernel-lab --family gemm: exit $?" | tee -a "$OUT/gemm.txt"
  [ -n "$clocks" ] && kill "$clocks" 2>/dev/null
  cat "$OUT/gemm-sweep.txt"; rm -rf "$OUT/report"
fi
exit $status
