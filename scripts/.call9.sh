#!/usr/bin/env bash
cd .carry; gunzip -f *.gz tests/*.gz 2>/dev/null; chmod +x kernel-lab tests/* 2>/dev/null; cd ..
O=/tmp/c9; mkdir -p $O
{ cat .carry/COMMIT; date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/gpu.txt
S=$(date +%s)
timeout 240 .carry/tests/gpu --test-threads 1 > $O/tests-gpu.txt 2>&1; echo "gpu tests exit $? $(grep 'test result' $O/tests-gpu.txt) t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
timeout 200 .carry/kernel-lab --check --family hgemm,gemm > $O/check.txt 2>&1; echo "check hgemm,gemm exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv -lms 100 > $O/sweep-clocks.csv 2>&1 &
SMI=$!
timeout 400 .carry/kernel-lab --family gemm --json $O/gemm-sweep.json > $O/gemm-sweep.txt 2>&1; echo "sweep exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
kill $SMI
cd /tmp && tar czf $OUT/call9.tgz c9
