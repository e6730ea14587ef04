#!/usr/bin/env bash
# The SGEMM GPU run (issue 15's f32 half), over the carried .carry/ (scripts/prepare-gpu-run.sh): the
# SGEMM and f32 entry-point GPU tests, `--check` of the steps in CHECK_STEPS (the family's odd shapes
# and SAN_SIZES), compute-sanitizer on NEW_STEPS, ptxas of the SGEMM kernels, the steps in STEPS head
# to head at SIZES (each interleaved with cublasSgemm), and (STAGES has `sweep`) the `gemm` family's
# f32 sweep through the entry point. Each stage has a time limit, so a hang ends that stage only.
set -uo pipefail
OUT=${OUT:-/tmp/kernel-lab-out}; mkdir -p "$OUT"
C=.carry
STAGES=${STAGES:-tests check sanitize ptxas steps sweep}
CHECK_STEPS=${CHECK_STEPS:-sgemm:v11,v12,v13}
NEW_STEPS=${NEW_STEPS:-sgemm:v13}
STEPS=${STEPS:-sgemm:v11,v12,v13}
SIZES=${SIZES:-1x4096x4096,4x4096x4096,16x4096x4096,32x4096x4096,64x4096x4096,128x4096x4096,256x4096x4096,1x14336x4096,16x14336x4096,1x4096x14336,16x4096x14336,127x8191x1024,512x512x512,1000x1000x1000,1024x1024x1024,2048x2048x2048,4096x4096x4096}
SAN_SIZES=${SAN_SIZES:-1x300x200,5x1000x777,17x64x4096,33x4097x130,70x130x1030}
has() { [[ " $STAGES " == *" $1 "* ]]; }
{ echo "commit $(cat $C/COMMIT | tr '\n' ' ')"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } 2>&1 | tee "$OUT/sgemm.txt"
if has tests; then
  echo "== tests ==" | tee -a "$OUT/sgemm.txt"
  timeout 300 $C/tests/gpu --test-threads=1 ${TEST_FILTER:-sgemm} >> "$OUT/sgemm.txt" 2>&1 || echo "FAILED: gpu tests" | tee -a "$OUT/sgemm.txt"
  grep -E "^test |test result|FAILED|SKIPPED|panicked" "$OUT/sgemm.txt"
fi
if has check; then
  echo "== check ==" | tee -a "$OUT/sgemm.txt"
  timeout 300 $C/kernel-lab --check --family sgemm --steps "$CHECK_STEPS" > "$OUT/check.txt" 2>&1; echo "kernel-lab --check --family sgemm --steps $CHECK_STEPS: exit $?" | tee -a "$OUT/sgemm.txt"
  timeout 300 $C/kernel-lab --check --family sgemm --steps "$CHECK_STEPS" --gemm-sizes "$SAN_SIZES" >> "$OUT/check.txt" 2>&1; echo "  at $SAN_SIZES: exit $?" | tee -a "$OUT/sgemm.txt"
  if [ -n "${F32_CHECK:-}" ]; then
    timeout 300 $C/kernel-lab --check --family gemm --dtype f32 >> "$OUT/check.txt" 2>&1; echo "kernel-lab --check --family gemm --dtype f32: exit $?" | tee -a "$OUT/sgemm.txt"
  fi
  grep -iE "fail|error|mismatch|unwritten" "$OUT/check.txt" | head -20
fi
if has sanitize && command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck synccheck; do
    timeout 240 compute-sanitizer --tool $tool $C/kernel-lab --check --family sgemm --steps "$NEW_STEPS" --gemm-sizes "$SAN_SIZES" > "$OUT/san-$tool.txt" 2>&1
    echo "compute-sanitizer $tool: exit $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san-$tool.txt" | tr '\n' ' ')" | tee -a "$OUT/sgemm.txt"
  done
  tar czf "$OUT/sanitizer.tgz" -C "$OUT" san-memcheck.txt san-racecheck.txt san-synccheck.txt && rm -f "$OUT"/san-*.txt
fi
if has ptxas && command -v ptxas >/dev/null; then
  ptxas -arch=sm_90a -v $C/kernels_sm_90a.ptx -o /tmp/sm90a.cubin 2> /tmp/ptxas.txt
  grep -E "sgemm_v1[1-9]" -A3 /tmp/ptxas.txt | grep -E "Compiling|registers|spill" | tee -a "$OUT/sgemm.txt"
fi
if has steps; then
  echo "== steps head to head ==" | tee -a "$OUT/sgemm.txt"
  timeout 400 $C/kernel-lab --family sgemm --steps "$STEPS" --gemm-sizes "$SIZES" --json "$OUT/steps.json" --out "$OUT/report" > "$OUT/steps.txt" 2>&1; echo "kernel-lab --family sgemm --steps $STEPS: exit $?" | tee -a "$OUT/sgemm.txt"
  cat "$OUT/steps.txt"; rm -rf "$OUT/report"
fi
if has sweep; then
  echo "== sweep (entry point, f32) ==" | tee -a "$OUT/sgemm.txt"
  timeout 400 $C/kernel-lab --family gemm --dtype f32 ${SWEEP_ARGS:-} --json "$OUT/sweep.json" --out "$OUT/report" > "$OUT/sweep.txt" 2>&1; echo "kernel-lab --family gemm --dtype f32: exit $?" | tee -a "$OUT/sgemm.txt"
  cat "$OUT/sweep.txt"; rm -rf "$OUT/report"
fi
