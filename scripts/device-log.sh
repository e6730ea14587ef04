# Sourced by the gpu-*.sh scripts of issues 49 and 51: `. scripts/device-log.sh NAME [SECONDS]` unpacks the carry
# (.carry/, xz-compressed binaries), starts the log $OUT/NAME with the carry's commit and the GPU's state, and
# defines `run CMD…`: the command logged with its exit code, under `timeout ${T:-SECONDS}` (default 300).
OUT=${OUT:-/tmp/kernel-lab-out}; mkdir -p "$OUT"
C=.carry
(cd $C && xz -d -f *.xz tests/*.xz 2>/dev/null; chmod +x * tests/* 2>/dev/null)
L="$OUT/$1"
RUN_T=${2:-300}
{ echo "commit $(tr '\n' ' ' < $C/COMMIT)"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv; } 2>&1 | tee "$L"
run() { echo "== $*" | tee -a "$L"; timeout ${T:-$RUN_T} "$@" >> "$L" 2>&1; echo "exit $?" | tee -a "$L"; }
