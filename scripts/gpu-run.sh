#!/usr/bin/env bash
# Runs on the GPU machine over the carried .carry/ (see prepare-gpu-run.sh). PART=1: the test binaries,
# `kernel-lab --check`, and `kernel-lab --ncu --sanitize` (the bank model beside Nsight Compute for every
# ladder and the replay patterns; compute-sanitizer memcheck/racecheck/synccheck). PART=2: both criterion
# benches, the SASS of the Hopper steps, a progress-bar check on a pseudo-terminal, and the timed suite
# with its report. Unset: both (may not fit one 10-minute device call). Everything lands in $OUT (at most
# 8 files come back, so directories travel as .tgz).
set -uo pipefail
OUT=${OUT:-/tmp/kernel-lab-out}; mkdir -p "$OUT"
C=.carry
{ echo "commit $(cat $C/COMMIT | tr '\n' ' ')"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } 2>&1 | tee "$OUT/tests.txt"
status=0
# PART=1: tests, --check, --ncu/--sanitize; PART=2: bench, SASS, the timed suite; unset: both (may not
# fit one 10-minute device call).
if [ "${PART:-12}" != 2 ]; then
echo "== tests ==" | tee -a "$OUT/tests.txt"
for t in $C/tests/*; do
  echo "-- $(basename $t)" >> "$OUT/tests.txt"
  "$t" --test-threads=1 >> "$OUT/tests.txt" 2>&1 || { status=1; echo "FAILED: $t" | tee -a "$OUT/tests.txt"; }
done
grep -E "test result|FAILED|SKIPPED|panicked" "$OUT/tests.txt"
echo "== check ==" ; { echo "#### kernel-lab --check"; $C/kernel-lab --check 2>/dev/null; } >> "$OUT/tests.txt" || status=1
# Bank model vs ncu (every replay pattern, and each ladder's kernels against their traces) and
# compute-sanitizer (memcheck, racecheck, synccheck), both driven by the binary itself (bench/src/cli/profile.rs).
$C/kernel-lab --ncu --sanitize --out "$OUT/profile" > "$OUT/profile.md" 2>&1; echo "kernel-lab --ncu --sanitize: exit $?" | tee -a "$OUT/tests.txt"
grep -E "disagreement|differ from ncu|^\| (memcheck|racecheck|synccheck)|FAILED|error" "$OUT/profile.md"
# At most 8 files come back from the device: the profile's CSVs and sanitizer logs travel as one archive.
rm -rf "$OUT/profile/child-report"; tar czf "$OUT/profile.tgz" -C "$OUT" profile && rm -rf "$OUT/profile"
fi
if [ "${PART:-12}" != 1 ]; then
if [ -x $C/bench-reduce ] && [ "${SKIP_BENCH:-0}" != 1 ]; then
  $C/bench-reduce --bench --warm-up-time 0.3 --measurement-time 1 --noplot > "$OUT/bench.txt" 2>&1; echo "cargo bench (reduce): exit $?"
  [ -x $C/bench-gemm ] && { $C/bench-gemm --bench --warm-up-time 0.3 --measurement-time 1 --noplot >> "$OUT/bench.txt" 2>&1; echo "cargo bench (gemm): exit $?"; }
fi
# Issue 6: the Hopper steps' SASS must show HGMMA and UTMALDG (needs the toolkit's ptxas and cuobjdump there).
if command -v ptxas >/dev/null && command -v cuobjdump >/dev/null && [ -f $C/kernels_sm_90a.ptx ]; then
  ptxas -arch=sm_90a $C/kernels_sm_90a.ptx -o "$OUT/sm90a.cubin" && cuobjdump -sass "$OUT/sm90a.cubin" > "$OUT/sm90a.sass"
  for k in selftest_wgmma_tma hgemm_tma_v1 hgemm_tma_v2 hgemm_tma_v3 hgemm_tma_v4 hgemm_tma_v5 hgemm_tma_v6; do
    awk -v k="$k" '/Function :/ {on = ($3 == k)} on' "$OUT/sm90a.sass" > "$OUT/sass-$k.txt"
    echo "SASS $k: HGMMA $(grep -c HGMMA "$OUT/sass-$k.txt"), UTMALDG $(grep -c UTMALDG "$OUT/sass-$k.txt"), UTMASTG $(grep -c UTMASTG "$OUT/sass-$k.txt"), SYNCS $(grep -c SYNCS "$OUT/sass-$k.txt"), local LDL/STL $(grep -cE "LDL|STL" "$OUT/sass-$k.txt")" | tee -a "$OUT/sass-summary.txt"
  done
else
  echo "SASS check skipped: ptxas/cuobjdump not on PATH"
fi
# The progress bars draw only on a terminal: run a quick suite under `script` (a pseudo-terminal) once.
command -v script >/dev/null && { script -qec "$C/kernel-lab --quick --family reduce,hgemm-warp --out $OUT/tty-report" "$OUT/tty.txt" > /dev/null 2>&1; rm -rf "$OUT/tty-report"; echo "progress bars on a tty: $(grep -ao "\] [0-9]*/[0-9]*" "$OUT/tty.txt" | wc -l) bar updates"; }
echo "== suite ==" ; $C/kernel-lab --json "$OUT/suite.json" --out "$OUT/report" > "$OUT/suite.txt" 2>/dev/null || status=1
cat "$OUT/suite.txt"
tar czf "$OUT/report.tgz" -C "$OUT" report && rm -rf "$OUT/report"
# SASS: keep the per-kernel excerpts of the Hopper steps only, as one archive.
[ -f "$OUT/sm90a.sass" ] && { tar czf "$OUT/sass.tgz" -C "$OUT" $(cd "$OUT" && ls sass-*.txt); rm -f "$OUT"/sass-*.txt "$OUT/sm90a.sass" "$OUT/sm90a.cubin"; }
fi
exit $status
