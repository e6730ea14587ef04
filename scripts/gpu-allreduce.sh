#!/usr/bin/env bash
# Issue 52's all-reduce ladder on a GPU machine in one call: the all-reduce GPU tests (plain and under
# compute-sanitizer memcheck; the kernels use no shared memory, so racecheck has nothing to check), `kernel-lab allreduce` in 3 processes
# (JSON each), each followed by NCCL through torch.distributed at the same sizes
# (scripts/allreduce-torch-peer.py). On one GPU the custom steps run with ranks sharing it (their
# protocol, not a link) and NCCL with one rank. NCCL is found through pip's nvidia-nccl package (linked
# as libnccl.so). NVLink multicast stays off. Carry: scripts/slim-carry.sh allreduce.
set -uo pipefail
. scripts/nccl-path.sh
. scripts/device-log.sh "allreduce.txt"
run nvidia-smi topo -m
run $C/tests/allreduce --test-threads=1 --nocapture
if [ "${SANITIZE:-1}" = 1 ]; then
  T=400 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/allreduce --test-threads=1 custom_steps
fi
PEER=1
for i in 1 2 3; do
  run $C/kernel-lab allreduce ${SIZES:+--sizes $SIZES} --json "$OUT/allreduce-$i.json"
  if [ $PEER = 1 ]; then
    T=${PEER_T:-150} run python3 scripts/allreduce-torch-peer.py ${SIZES:+--sizes $SIZES} --out "$OUT/peer-$i.md"
    # A peer that ran out of time once will again: the rest of the call goes to our own runs.
    tail -1 "$L" | grep -q "^exit 124" && PEER=0
  fi
done
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^\| |^## |SKIPPED|does not run|One GPU|note:|error" "$L" | head -300
