#!/usr/bin/env bash
cd .carry; gunzip -f *.gz tests/*.gz 2>/dev/null; chmod +x kernel-lab tests/* 2>/dev/null; cd ..
O=/tmp/c15; mkdir -p $O
{ cat .carry/COMMIT; date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/gpu.txt
S=$(date +%s)
for tool in memcheck initcheck; do
  timeout 200 compute-sanitizer --tool $tool --print-limit 5 .carry/kernel-lab --check --family gemm --dtype f32 --config v29 --gemm-sizes 5x9x16,33x13x32,127x127x48,3x1001x160,130x4097x1024,65x8x32,200x9x1024 > $O/san-v29-$tool.txt 2>&1
  echo "sanitize v29 $tool exit $? $(grep -E 'ERROR SUMMARY' $O/san-v29-$tool.txt | tr '\n' ' ') t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
done
timeout 200 .carry/tests/gpu --test-threads 1 sgemm > $O/tests-gpu.txt 2>&1; echo "gpu sgemm tests exit $? $(grep 'test result' $O/tests-gpu.txt) t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
timeout 120 .carry/kernel-lab --check --family gemm --dtype f32 --config v29 --gemm-sizes 5x9x16,33x13x32,127x127x48,3x1001x160,64x4095x4096,127x8191x1024,130x4097x1024,1000x999x1000,255x8191x1024,65x8x32 > $O/check-v29.txt 2>&1; echo "check v29 exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
timeout 240 .carry/kernel-lab ab --family sgemm v25 v29 --gemm-sizes 127x8191x1024,130x4097x1024,1000x999x1000,64x4095x4096,255x8191x1024,127x1031x1024,127x8192x1024 > $O/ab-v25-v29.txt 2>&1; echo "ab exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
grep -E "^\s*[0-9]+x" $O/ab-v25-v29.txt | head -20 | tee -a $O/summary.txt
for run in v29:127x8191x1024 v24:127x8192x1024; do
  IFS=: read -r cfg size <<< "$run"
  timeout 200 ncu --clock-control none -k regex:sgemm_v -c 1 --set full --import-source no -f -o "$O/$cfg" \
    .carry/kernel-lab --family gemm --dtype f32 --config $cfg --gemm-sizes $size --check > "$O/ncu-$cfg.log" 2>&1
  echo "ncu $cfg exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
  ncu -i "$O/$cfg.ncu-rep" --page details > "$O/details-$cfg.txt" 2>&1
  ncu -i "$O/$cfg.ncu-rep" --page source --csv --print-source sass > "$O/sass-$cfg.csv" 2>&1
  rm -f "$O/$cfg.ncu-rep"
done
cd /tmp && tar czf $OUT/call15.tgz c15
