#!/usr/bin/env bash
# Session 113's device calls (issue 50). Carry: kernel-lab (new), old/kernel-lab (main before the change), tests/backward.
# CALL=5: issue 48, the two FP8 picks an H100's own L2 changes.
# CALL=4: b9 with dK's first half issued before the warpgroups' barrier.
# CALL=3: b4's conversion leaves the accumulator zeroed; the plan's memset only where it is not known clean.
# CALL=2: b9's statistics loaded ahead of the waits; the backward plan's offsets copied only when they change.
# CALL=1: b4's dQ conversion rewritten (16-byte loads and stores, whole sectors; session 113). Its test (every backward
#   case, f16 and bf16, b9 the default and b4, against the f64 reference); every kernel of one b9 backward at
#   1x16x16x4096x128 bf16 by ncu (durations, caches as they are: prep, b9, conversion), old build then new; ncu's full set
#   with b9's SASS-level stall samples and cuDNN's bprop kernel's full set at the same shape; b9 against b4 (3 processes)
#   and torch's cuDNN backward at 1x16x16x4096x128 and 1x16x16x8192x128.
#   Predicted: the conversion 37.3 us -> 14-20 us (48 MiB at 2.5-3.3 TB/s); b9's whole backward 0.96-0.98x its session-112 time.
set -uo pipefail
. scripts/device-log.sh s113-call${CALL:-1}.txt 200
J=/tmp/s113; mkdir -p $J
# `b9_old_new TAG`: b9 against b4 by .carry/old/kernel-lab and .carry/kernel-lab, 3 processes alternating, at the three
# shapes the calls compare, each run's JSON to $J/TAG-BUILD-pI.json under a "== set b9 process I build B" line.
b9_old_new() {
  for i in 1 2 3; do
    for b in old new; do
      local bin=$C/kernel-lab; [ $b = old ] && bin=$C/old/kernel-lab
      echo "== set b9 process $i build $b" | tee -a "$L"
      T=90 run $bin backward --shapes 1x16x16x4096x128,1x16x16x8192x128,2x16x16x4096x64 --dtype bf16 --steps b9 --json $J/$1-$b-p$i.json
    done
    stamp "process $i"
  done
}
case ${CALL:-1} in
1)
  T=300 run $C/tests/backward --test-threads 1
  B="backward --shapes 1x16x16x4096x128 --dtype bf16 --steps b9"
  for b in old new; do
    bin=$C/kernel-lab; [ $b = old ] && bin=$C/old/kernel-lab
    echo "== durations build $b" | tee -a "$L"
    T=120 run ncu --clock-control none --cache-control none -k regex:attn_bwd -c 8 --section SpeedOfLight $bin $B
  done
  stamp durations
  T=200 run ncu --clock-control none -k regex:attn_bwd_b9 -c 1 --set full --import-source no -o /tmp/b9rep $C/kernel-lab $B
  ncu -i /tmp/b9rep.ncu-rep --page source --csv --print-source sass > $J/b9-sass.csv 2>&1
  T=100 run ncu -i /tmp/b9rep.ncu-rep --page details
  stamp "b9 full"
  T=200 run ncu --clock-control none -k regex:bprop -c 1 --set full python3 scripts/backward-torch-peer.py --shapes 1x16x16x4096x128 --backends cudnn --reps 1
  stamp "cudnn full"
  for i in 1 2 3; do
    T=60 run $C/kernel-lab backward --shapes 1x16x16x4096x128,1x16x16x8192x128 --dtype bf16 --steps b9 --json $J/b9-p$i.json
    stamp "b9 process $i"
  done
  T=60 run python3 scripts/backward-torch-peer.py --shapes 1x16x16x4096x128,1x16x16x8192x128 --backends cudnn --reps 20
  ;;
2)
  # b9 with its statistics loaded before the waits (D = 128) and the backward plan's offsets copied only when they
  # change. Predicted: b9's kernel 0.95-0.98x its time (b9/b4 ratio against the old build's); the offsets: b4's and
  # b9's whole backward 0.97-1.00x (whatever the per-run pageable copy cost).
  T=300 run $C/tests/backward --test-threads 1
  T=100 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/kernel-lab backward --shapes 1x2x2x200x128,1x4x1x300x64 --dtype bf16 --steps b9
  T=100 run compute-sanitizer --tool racecheck --error-exitcode 9 $C/kernel-lab backward --shapes 1x2x2x200x128 --dtype bf16 --steps b9
  stamp checked
  b9_old_new b9
  T=90 run python3 scripts/backward-torch-peer.py --shapes 1x16x16x4096x128,1x16x16x8192x128,2x16x16x4096x64 --backends cudnn --reps 20
  T=200 run ncu --clock-control none -k regex:attn_bwd_b9 -c 1 --set full --import-source no -o /tmp/b9rep2 $C/kernel-lab backward --shapes 1x16x16x4096x128 --dtype bf16 --steps b9
  ncu -i /tmp/b9rep2.ncu-rep --page source --csv --print-source sass > $J/b9-sass-2.csv 2>&1
  T=60 run ncu -i /tmp/b9rep2.ncu-rep --page details --section SpeedOfLight
  ;;
3)
  # b4's conversion sets dQ's accumulator back to zero, and the plan memsets it only when it does not know it clean.
  # Predicted: b9's and b4's whole backward 0.98-0.99x (the 32 MiB memset at 1x16x16x4096x128, ~12-15 us of ~750, gone;
  # the conversion's zero stores land on L2 lines it just read).
  T=300 run $C/tests/backward --test-threads 1
  T=100 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/kernel-lab backward --shapes 1x2x2x200x128,1x4x1x300x64 --dtype bf16 --steps b9
  T=60 run ncu --clock-control none --cache-control none -k regex:attn_bwd -c 3 --section SpeedOfLight $C/kernel-lab backward --shapes 1x16x16x4096x128 --dtype bf16 --steps b9
  stamp checked
  b9_old_new zero
  ;;
4)
  # b9 issuing dK's first two k-steps before the warpgroups' barrier (they need only its own dS), the other two after dQ.
  # Predicted: 0.97-0.99x b9's time (the tensor pipe fed while the warpgroups meet; barrier stalls were 5.4% of the
  # computing warps' samples).
  T=300 run $C/tests/backward --test-threads 1 backward_matches_the_f64_reference b4_backward a_reused_plan grouped_heads a_neighbours padded_keys
  T=100 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/kernel-lab backward --shapes 1x2x2x200x128,1x4x1x300x64 --dtype bf16 --steps b9
  T=100 run compute-sanitizer --tool racecheck --error-exitcode 9 $C/kernel-lab backward --shapes 1x2x2x200x128,1x4x1x300x64 --dtype bf16 --steps b9
  stamp checked
  b9_old_new dk
  ;;
5)
  # Issue 48: the shipped FP8 costs on a GPU take its own L2 (50 MiB on an H100, not the H200's 60). Over 1,183 corpus
  # shapes (shapes.py gemm, m 16-2048) it changes two picks, 96x14336x4096 and 128x14336x4096 (56 MiB of weights), from
  # f27n128 to f27n192. Predicted: f27n192 no slower than f27n128 at both, and within 5% of the fastest few-tile step.
  for i in 1 2 3; do
    T=150 run $C/kernel-lab --family fp8 --steps f27n192,f27n128,f14,f21x2,f21x3,f21x4,f21x5,f21x6,f22,f28 --gemm-sizes 96x14336x4096,128x14336x4096 \
        --reps 6 --warmup 1 --seed 11305$i --json $J/l2-p$i.json --out /tmp/r
    stamp "l2 process $i"
  done
  python3 scripts/bench-json-times.py fp8 $J/l2-p*.json > $J/l2-times.tsv
  # Issue 50 (no prediction: evidence): cuDNN's bprop kernel's SASS-level stall samples at 1x16x16x4096x128 bf16, as call 1
  # took b9's.
  T=200 run ncu --clock-control none -k regex:bprop -c 1 --set full --import-source no -o /tmp/cudnnrep python3 scripts/backward-torch-peer.py --shapes 1x16x16x4096x128 --backends cudnn --reps 1
  ncu -i /tmp/cudnnrep.ncu-rep --page source --csv --print-source sass > $J/cudnn-bprop-sass.csv 2>&1
  ;;
esac
tar cJf $OUT/s113-call${CALL:-1}.tar.xz -C /tmp s113
grep -E "^exit [1-9]|panicked|ERROR SUMMARY: [1-9]|RACECHECK SUMMARY|hazard" "$L" | head || true
xz -9 -f "$L"
