#!/usr/bin/env bash
C=/tmp/c12; mkdir -p $C
cd .carry && gunzip -f *.gz tests/*.gz 2>/dev/null; chmod +x kernel-lab tests/*; cd ..
B=.carry/kernel-lab
(cat .carry/COMMIT; date; nvidia-smi --query-gpu=name,driver_version,clocks.current.sm,clocks.max.sm,power.limit --format=csv) > $C/gpu.txt
t0=$(date +%s)
s() { echo "$1 exit $2 t=$(( $(date +%s)-t0 ))" >> $C/summary.txt; }
timeout -s KILL 200 $B --family selftest,bankcheck > $C/selftest.txt 2>&1; s selftest $?
timeout -s KILL 200 .carry/tests/gpu > $C/tests-gpu.txt 2>&1; s "gpu tests $(grep 'test result' $C/tests-gpu.txt)" $?
timeout -s KILL 60 $B ab --family hgemm h6s4 h11 --rounds 6 --gemm-sizes 256x11008x4096,256x8192x4096,512x6144x4096 > $C/ab-h6s4-h11.txt 2>&1; s "ab h6s4 h11" $?
timeout -s KILL 60 $B ab --family hgemm h10 h11 --rounds 6 --gemm-sizes 1280x4096x4096,1280x4096x14336 > $C/ab-h10-h11.txt 2>&1; s "ab h10 h11" $?
timeout -s KILL 60 $B ab --family hgemm h8x2 h11 --rounds 6 --gemm-sizes 1536x4096x4096,1536x4096x14336 > $C/ab-h8x2-h11.txt 2>&1; s "ab h8x2 h11" $?
timeout -s KILL 120 $B --family gemm --dtype f16,bf16 --json $C/sweep.json > $C/sweep.txt 2>&1; s "sweep" $?
SH="257x4096x4096,300x4096x4096,256x11008x4096"
for m in 384 512 768 1024; do for nk in 4096x4096 11008x4096 4096x11008 14336x4096 4096x14336 28672x8192; do SH="$SH,${m}x$nk"; done; done
timeout -s KILL 150 $B --family gemm --dtype f16,bf16 --gemm-sizes $SH,640x4096x4096,1280x4096x4096,1536x4096x4096 --json $C/prefill.json > $C/prefill.txt 2>&1; s prefill $?
cd /tmp && tar czf $OUT/call12.tgz c12
