#!/usr/bin/env bash
# Where a graphed decode step's time goes, at real speed (no per-launch events): Nsight Systems traces the
# `llm` runner's CUDA graphs node by node (Llama-3-8B shape, batch 1) at TP = 1 and TP = 2, and its
# `cuda_gpu_kern_sum` report (per kernel: count, total, median) lands in $OUT/nsys.tar.gz. Skipped, saying
# so, where nsys is not installed. Carry: scripts/slim-carry.sh (any).
set -uo pipefail
. scripts/nccl-path.sh
. scripts/device-log.sh "nsys.txt" 300
NSYS=$(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems*/bin/nsys 2>/dev/null | head -1)
[ -z "$NSYS" ] && { echo "SKIPPED: no nsys on this machine" | tee -a "$L"; exit 0; }
run $NSYS --version
M=/tmp/llm-check/llama3-8b; D="$OUT/nsys"; mkdir -p "$D"
T=200 run python3 scripts/llm-hf-check.py --make-only --models llama3-8b
for tp in 1 2; do
  T=300 run $NSYS profile -o "$D/tp$tp" --force-overwrite true --trace cuda --cuda-graph-trace node $C/llm --model $M --prompt-len 512 --max-new 64 --batch 1 --tp $tp
  T=200 run $NSYS stats --report cuda_gpu_kern_sum --format csv --output "$D/tp$tp" "$D/tp$tp.nsys-rep"
  rm -f "$D/tp$tp.nsys-rep" "$D/tp$tp.sqlite"
done
cp "$L" "$D/"; (cd "$OUT" && tar czf nsys.tar.gz nsys && rm -rf nsys)
grep -E "^==|^exit|SKIPPED|decode|error|Error" "$L" | head -40
