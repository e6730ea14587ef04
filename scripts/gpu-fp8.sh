#!/usr/bin/env bash
# The FP8 family's GPU run (issue 16), over the carried .carry/ (scripts/prepare-gpu-run.sh): the FP8
# GPU tests, `--check --family fp8`, the SASS of the FP8 steps (HGMMA forms, spills), compute-sanitizer
# on a small check, the timed family (with the promotion study), and the torch._scaled_mm peer
# (scripts/fp8-torch-peer.py) in the same call. Each stage has a time limit, so a hang ends that stage
# only. STAGES (default "tests check sass sanitize timed torch"; also `ncu`: NCU_KERNELS at NCU_SIZES) picks stages.
set -uo pipefail
OUT=${OUT:-/tmp/kernel-lab-out}; mkdir -p "$OUT"
C=.carry
STAGES=${STAGES:-tests check sass sanitize timed torch}
has() { [[ " $STAGES " == *" $1 "* ]]; }
{ echo "commit $(cat $C/COMMIT | tr '\n' ' ')"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } 2>&1 | tee "$OUT/fp8.txt"
status=0
if has tests; then
  echo "== tests ==" | tee -a "$OUT/fp8.txt"
  for t in fp8 ${EXTRA_TESTS:-}; do
    timeout 300 $C/tests/$t --test-threads=1 >> "$OUT/fp8.txt" 2>&1 || { status=1; echo "FAILED: $t" | tee -a "$OUT/fp8.txt"; }
  done
  grep -E "test result|FAILED|SKIPPED|panicked" "$OUT/fp8.txt"
fi
if has check; then
  echo "== check ==" | tee -a "$OUT/fp8.txt"
  timeout 300 $C/kernel-lab --check --family fp8 ${CHECK_ARGS:-} >> "$OUT/fp8.txt" 2>&1; echo "kernel-lab --check --family fp8: exit $?" | tee -a "$OUT/fp8.txt"
fi
if has sass && command -v ptxas >/dev/null && command -v cuobjdump >/dev/null; then
  ptxas -arch=sm_90a -v $C/kernels_sm_90a.ptx -o "$OUT/sm90a.cubin" 2> "$OUT/ptxas.txt" && cuobjdump -sass "$OUT/sm90a.cubin" > "$OUT/sm90a.sass"
  for k in $(grep -oE 'Function : fp8_gemm_v[0-9]+' "$OUT/sm90a.sass" | awk '{print $3}' | sort -V -u); do
    awk -v k="$k" '/Function :/ {on = ($3 == k)} on' "$OUT/sm90a.sass" > "$OUT/sass-$k.txt"
    echo "SASS $k: $(grep -oE '[HQ]GMMA\.[0-9A-Za-z.]+' "$OUT/sass-$k.txt" | sort | uniq -c | tr '\n' ' '), UTMALDG $(grep -c UTMALDG "$OUT/sass-$k.txt"), UTMASTG $(grep -c UTMASTG "$OUT/sass-$k.txt"), FFMA $(grep -c FFMA "$OUT/sass-$k.txt"), local LDL/STL $(grep -cE 'LDL|STL' "$OUT/sass-$k.txt")" | tee -a "$OUT/fp8.txt"
  done
  grep -E "C75.*fp8|fp8_gemm" -A3 "$OUT/ptxas.txt" | grep -E "C75|Compiling|registers|spill" | tee -a "$OUT/fp8.txt"; rm -f "$OUT/ptxas.txt"
  tar czf "$OUT/sass-fp8.tgz" -C "$OUT" $(cd "$OUT" && ls sass-*.txt); rm -f "$OUT"/sass-*.txt "$OUT/sm90a.sass" "$OUT/sm90a.cubin"
fi
if has sanitize && command -v compute-sanitizer >/dev/null; then
  # 260x264x400: an M that f15/f16 take (M % 4 == 0). racecheck reports f15/f16's scale slot (a
  # st.shared ordered by mbarriers) as hazards: the tool does not follow mbarrier ordering of generic
  # shared accesses (selftest_mbarrier_handoff, results/2026-11-25-h100-session17/call10).
  for tool in memcheck racecheck synccheck; do
    timeout 240 compute-sanitizer --tool $tool $C/kernel-lab --check --family fp8 --gemm-sizes ${SAN_SIZES:-130x264x400,260x264x400,257x136x1024} > "$OUT/san-$tool.txt" 2>&1
    echo "compute-sanitizer $tool: exit $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san-$tool.txt" | tr '\n' ' ')" | tee -a "$OUT/fp8.txt"
  done
  tar czf "$OUT/sanitizer.tgz" -C "$OUT" san-memcheck.txt san-racecheck.txt san-synccheck.txt && rm -f "$OUT"/san-*.txt
fi
if has ncu && command -v ncu >/dev/null; then
  # Full ncu sections and the per-SASS-instruction stall table (CSV) of each kernel in NCU_KERNELS, one
  # launch each, at NCU_SIZES (a --check run: verified, untimed).
  for k in ${NCU_KERNELS:-fp8_gemm_v3 fp8_gemm_v9}; do
    timeout 300 ncu --clock-control none -k "$k" -c 1 --set full --import-source no -f -o "$OUT/$k" \
      $C/kernel-lab --check --family fp8 --gemm-sizes "${NCU_SIZES:-8192x8192x4096}" > "$OUT/ncu-$k.log" 2>&1
    echo "ncu $k: exit $?" | tee -a "$OUT/fp8.txt"
    ncu -i "$OUT/$k.ncu-rep" --page details > "$OUT/ncu-$k.txt" 2>&1
    ncu -i "$OUT/$k.ncu-rep" --page source --csv --print-source sass > "$OUT/sass-$k.csv" 2>&1
    grep -E "Duration|Tensor|Issue Slots|Eligible Warps|L2 Cache Throughput|Shared Memory|SM Frequency" "$OUT/ncu-$k.txt" | head -14 | tee -a "$OUT/fp8.txt"
    rm -f "$OUT/$k.ncu-rep" "$OUT/ncu-$k.log"
  done
  tar czf "$OUT/ncu-fp8.tgz" -C "$OUT" $(cd "$OUT" && ls ncu-*.txt sass-*.csv 2>/dev/null) && rm -f "$OUT"/ncu-*.txt "$OUT"/sass-*.csv
fi
if has timed; then
  echo "== timed ==" | tee -a "$OUT/fp8.txt"
  timeout 420 $C/kernel-lab --family fp8 ${TIMED_ARGS:-} --json "$OUT/fp8.json" --out "$OUT/report" > "$OUT/fp8-timed.txt" 2>&1; echo "kernel-lab --family fp8: exit $?" | tee -a "$OUT/fp8.txt"
  cat "$OUT/fp8-timed.txt"; rm -rf "$OUT/report"
fi
if has torch; then
  timeout 240 python3 scripts/fp8-torch-peer.py ${TORCH_ARGS:-} > "$OUT/torch-fp8.txt" 2>&1; echo "torch peer: exit $?" | tee -a "$OUT/fp8.txt"
  cat "$OUT/torch-fp8.txt"
fi
exit $status
