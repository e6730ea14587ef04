#!/usr/bin/env bash
cd .carry; gunzip -f *.gz tests/*.gz 2>/dev/null; chmod +x kernel-lab tests/* 2>/dev/null; cd ..
O=/tmp/c11; mkdir -p $O
{ cat .carry/COMMIT; date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/gpu.txt
S=$(date +%s)
timeout 240 .carry/tests/gpu --test-threads 1 every_hgemm > $O/tests-gpu.txt 2>&1; echo "gpu tests exit $? $(grep 'test result' $O/tests-gpu.txt) t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
OUT=$O/probe CONFIGS="d9 d16 d9 d16" PROBE_SIZES=64x4096x64,64x4096x1024,64x4096x4096,32x4096x4096,17x4096x4096,48x4096x4096,64x4096x14336,32x4096x14336 \
  NCU_RUNS="d16:64x4096x4096:hgemm_decode" timeout 500 bash scripts/decode-probe.sh > $O/probe.log 2>&1
echo "probe exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
timeout 100 .carry/kernel-lab --family gemm --dtype bf16 --config d16-bf16 --gemm-sizes 64x4096x4096,32x4096x4096,64x4096x14336 > $O/bf16-d16.txt 2>&1
echo "bf16 d16 exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
timeout 100 .carry/kernel-lab --check --family gemm --dtype f16 --config d16 --gemm-sizes 1x8x8,7x200x1000,64x4096x4096,65x4096x4096,130x264x1024,64x4096x4095,100x1000x1000 > $O/check-d16.txt 2>&1
echo "check d16 exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
for tool in memcheck synccheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --print-limit 5 --kernel-name regex:hgemm_decode .carry/kernel-lab --check --family gemm --dtype f16 --config d16 --gemm-sizes 7x200x1000,70x1024x2048 > $O/san-d16-$tool.txt 2>&1
  echo "sanitize d16 $tool exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/san-d16-$tool.txt | tr '\n' ' ') t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
done
cd /tmp && tar czf $OUT/call11.tgz c11
