#!/usr/bin/env bash
cd .carry; gunzip -f *.gz tests/*.gz 2>/dev/null; chmod +x kernel-lab tests/* 2>/dev/null; cd ..
O=/tmp/c8; mkdir -p $O
{ cat .carry/COMMIT; date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/gpu.txt
S=$(date +%s)
timeout 240 .carry/tests/gpu --test-threads 1 every_hgemm pdl_launches the_gemm_entry_point > $O/tests-gpu.txt 2>&1; echo "gpu tests exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
OUT=$O/probe CONFIGS="d14 d15 d14 d15" PROBE_SIZES=1x4096x64,1x4096x1024,1x4096x4096,16x4096x4096,8x4096x4096,1x4096x14336,16x4096x14336 \
  NCU_RUNS="d15:1x4096x64:hgemm_decode" timeout 500 bash scripts/decode-probe.sh > $O/probe.log 2>&1
echo "probe exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
timeout 100 .carry/kernel-lab --family gemm --dtype bf16 --config d15-bf16 --gemm-sizes 1x4096x4096,16x4096x4096,1x4096x14336 > $O/bf16-d15.txt 2>&1
echo "bf16 d15 exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
timeout 100 .carry/kernel-lab --check --family gemm --dtype f16 --config d15 --gemm-sizes 1x8x8,7x200x1000,16x4096x4096,17x4096x4096,33x1000x1000,130x264x1024,64x4096x4095,1x64x4096 > $O/check-d15.txt 2>&1
echo "check d15 exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
for cfg in d14 d15; do for tool in memcheck synccheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --print-limit 5 .carry/kernel-lab --check --family gemm --dtype f16 --config $cfg --gemm-sizes 7x200x1000,16x1024x2048 > $O/san-$cfg-$tool.txt 2>&1
  echo "sanitize $cfg $tool exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/san-$cfg-$tool.txt | tr '\n' ' ') t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
done; done
cd /tmp && tar czf $OUT/call8.tgz c8
