#!/usr/bin/env bash
cd .carry; gunzip -f *.gz tests/*.gz 2>/dev/null; chmod +x kernel-lab tests/* 2>/dev/null; cd ..
O=/tmp/c16; mkdir -p $O
{ cat .carry/COMMIT; date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/gpu.txt
S=$(date +%s)
timeout 240 .carry/tests/gpu --test-threads 1 > $O/tests-gpu.txt 2>&1; echo "gpu tests exit $? $(grep 'test result' $O/tests-gpu.txt) t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
timeout 200 .carry/kernel-lab --check --family sgemm,gemm > $O/check.txt 2>&1; echo "check sgemm,gemm exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
timeout 300 .carry/kernel-lab --family gemm --dtype f32 --json $O/f32-sweep.json > $O/f32-sweep.txt 2>&1; echo "f32 sweep exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
grep -E "^v[0-9]+ " $O/f32-sweep.txt | awk '{print $1, $2, $5}' | tee -a $O/summary.txt
cd /tmp && tar czf $OUT/call16.tgz c16
