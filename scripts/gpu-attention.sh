#!/usr/bin/env bash
# The attention family's GPU run (issue 17), over the carried .carry/ (scripts/prepare-gpu-run.sh): the
# attention GPU tests, `--check --family attention` (sweep + ragged shapes, f16 and bf16), ptxas resources
# of the kernels, compute-sanitizer on a small check, the timed family, and the torch SDPA peer
# (scripts/attention-torch-peer.py: flash, cuDNN and efficient backends) in the same call. Each stage has a
# time limit. STAGES (default "tests check ptxas sanitize timed torch") picks stages; the stage `ncu`
# (not in the default) profiles each kernel of NCU_KERNELS (one launch, the `--check` run at NCU_SIZES)
# with the full section set and writes its per-SASS-instruction table (stall samples by reason) as CSV.
set -uo pipefail
OUT=${OUT:-/tmp/kernel-lab-out}; mkdir -p "$OUT"
C=.carry
STAGES=${STAGES:-tests check ptxas sanitize timed torch}
has() { [[ " $STAGES " == *" $1 "* ]]; }
{ echo "commit $(cat $C/COMMIT | tr '\n' ' ')"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } 2>&1 | tee "$OUT/attention.txt"
status=0
if has tests; then
  echo "== tests ==" | tee -a "$OUT/attention.txt"
  timeout 300 $C/tests/attention --test-threads=1 >> "$OUT/attention.txt" 2>&1 || { status=1; echo "FAILED: attention tests" | tee -a "$OUT/attention.txt"; }
  grep -E "test result|FAILED|SKIPPED|panicked" "$OUT/attention.txt"
fi
if has check; then
  echo "== check ==" | tee -a "$OUT/attention.txt"
  timeout 400 $C/kernel-lab --check --family attention ${CHECK_ARGS:-} >> "$OUT/attention.txt" 2>&1; echo "kernel-lab --check --family attention: exit $?" | tee -a "$OUT/attention.txt"
fi
if has ptxas && command -v ptxas >/dev/null; then
  ptxas -arch=sm_90a -v $C/kernels_sm_90a.ptx -o /tmp/attn.cubin 2> /tmp/ptxas.txt
  grep -E "attn_" -A3 /tmp/ptxas.txt | grep -E "Compiling|registers|spill" | tee -a "$OUT/attention.txt"
fi
if has sanitize && command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck synccheck; do
    timeout 240 compute-sanitizer --tool $tool $C/kernel-lab --check --family attention --attn-sizes ${SAN_SIZES:-1x2x130x64,1x1x200x128} > "$OUT/san-$tool.txt" 2>&1
    echo "compute-sanitizer $tool: exit $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san-$tool.txt" | tr '\n' ' ')" | tee -a "$OUT/attention.txt"
  done
  tar czf "$OUT/sanitizer-attention.tgz" -C "$OUT" san-memcheck.txt san-racecheck.txt san-synccheck.txt && rm -f "$OUT"/san-*.txt
fi
if has timed; then
  echo "== timed ==" | tee -a "$OUT/attention.txt"
  timeout 420 $C/kernel-lab --family attention ${TIMED_ARGS:-} --json "$OUT/attention.json" --out "$OUT/report" > "$OUT/attention-timed.txt" 2>&1; echo "kernel-lab --family attention: exit $?" | tee -a "$OUT/attention.txt"
  cat "$OUT/attention-timed.txt"; rm -rf "$OUT/report"
fi
if has ncu && command -v ncu >/dev/null; then
  for k in ${NCU_KERNELS:-attn_a7_d128_f16}; do
    timeout 300 ncu --clock-control none -k "$k" -c 1 --set full --import-source no -f -o "$OUT/$k" \
      $C/kernel-lab --check --family attention --attn-sizes "${NCU_SIZES:-4x16x4096x128}" > "$OUT/ncu-$k.log" 2>&1
    echo "ncu $k: exit $?" | tee -a "$OUT/attention.txt"
    ncu -i "$OUT/$k.ncu-rep" --page details > "$OUT/ncu-$k.txt" 2>&1
    ncu -i "$OUT/$k.ncu-rep" --page source --csv --print-source sass > "$OUT/sass-$k.csv" 2>&1
    grep -E "Duration|Tensor|Issue Slots|Eligible Warps|Registers Per|Achieved Occ" "$OUT/ncu-$k.txt" | head -12
    rm -f "$OUT/$k.ncu-rep" "$OUT/ncu-$k.log"
  done
  tar czf "$OUT/ncu-attention.tgz" -C "$OUT" $(cd "$OUT" && ls ncu-*.txt sass-*.csv 2>/dev/null) && rm -f "$OUT"/ncu-*.txt "$OUT"/sass-*.csv
fi
if has torch; then
  timeout 300 python3 scripts/attention-torch-peer.py ${TORCH_ARGS:-} > "$OUT/torch-attention.txt" 2>&1; echo "torch peer: exit $?" | tee -a "$OUT/attention.txt"
  cat "$OUT/torch-attention.txt"
fi
exit $status
