#!/usr/bin/env bash
cd .carry; gunzip -f *.gz tests/*.gz 2>/dev/null; chmod +x kernel-lab tests/* 2>/dev/null; cd ..
O=/tmp/c12; mkdir -p $O
{ cat .carry/COMMIT; date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/gpu.txt
S=$(date +%s)
timeout 200 .carry/tests/gpu --test-threads 1 the_gemm_entry_point pdl_launches > $O/tests-gpu.txt 2>&1; echo "gpu tests exit $? $(grep 'test result' $O/tests-gpu.txt) t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
for tool in memcheck synccheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --print-limit 5 .carry/kernel-lab --check --family gemm --dtype f16 --config d16 --gemm-sizes 7x200x1000,70x1024x2048 > $O/san-d16-$tool.txt 2>&1
  echo "sanitize d16 $tool exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|Race reported' $O/san-d16-$tool.txt | tr '\n' ' ') t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
done
timeout 300 .carry/kernel-lab --family gemm --dtype f16,bf16 --json $O/gemm-sweep.json > $O/gemm-sweep.txt 2>&1; echo "sweep exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
KERNEL_LAB_CHAIN=8 timeout 100 .carry/kernel-lab --family gemm --dtype f16 --gemm-sizes 1x4096x4096,16x4096x4096,64x4096x4096,1x4096x14336 > $O/chain8.txt 2>&1; echo "chain8 exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
cd /tmp && tar czf $OUT/call12.tgz c12
