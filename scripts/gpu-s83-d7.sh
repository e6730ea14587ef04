#!/usr/bin/env bash
# Session 83, issue 48: the GEMM entry with d7's constants from this session's calibration (.carry/kernel-lab)
# against the shipped ones before it (.carry/old/kernel-lab) on the 44 corpus shapes whose bf16 pick changed
# (results/2026-12-02-h200-session83/d7-changed.txt), 3 processes each, alternating. Output packed into one archive.
set -uo pipefail
. scripts/device-log.sh "s83-d7.txt" 300
gemm_old_new d7 83 bf16 --shapes-file results/2026-12-02-h200-session83/d7-changed.txt
grep -E "^==|^exit|^t\+" "$L" | head -40
(cd "$OUT" && tar cJf /tmp/s83-d7.tar.xz . && find . -type f -delete && mv /tmp/s83-d7.tar.xz .)
