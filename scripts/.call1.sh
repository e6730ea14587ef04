set -u
cd .carry && gunzip -f *.gz tests/*.gz; chmod +x kernel-lab tests/* && cd ..
O=/tmp/c1; mkdir -p $O; C=.carry
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv > $O/gpu.txt 2>&1
cat $C/COMMIT >> $O/gpu.txt; date -u >> $O/gpu.txt
S=$(date +%s)
timeout 300 $C/tests/gpu --test-threads=1 > $O/tests.txt 2>&1; echo "gpu tests exit $? ($(( $(date +%s)-S )) s)" | tee -a $O/summary.txt
grep -E "^test |test result|SKIPPED|panicked" $O/tests.txt | tee -a $O/summary.txt
SAN=1x300x200,5x1000x777,17x64x4096,33x4097x130,70x130x1030,512x512x512,127x1031x1024
timeout 120 $C/kernel-lab --check --family sgemm --steps sgemm:v21,v22 > $O/check.txt 2>&1; echo "check v21,v22 exit $?" | tee -a $O/summary.txt
timeout 120 $C/kernel-lab --check --family sgemm --steps sgemm:v21,v22 --gemm-sizes $SAN >> $O/check.txt 2>&1; echo "check v21,v22 at $SAN exit $?" | tee -a $O/summary.txt
timeout 120 $C/kernel-lab --check --family gemm --dtype f32 >> $O/check.txt 2>&1; echo "check gemm f32 exit $?" | tee -a $O/summary.txt
for tool in memcheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool $C/kernel-lab --check --family sgemm --steps sgemm:v21,v22 --gemm-sizes $SAN > $O/san-$tool.txt 2>&1
  echo "sanitizer $tool exit $? $(grep -E 'ERROR SUMMARY' $O/san-$tool.txt | tr '\n' ' ')" | tee -a $O/summary.txt
done
echo "t=$(( $(date +%s)-S ))" >> $O/summary.txt
timeout 150 $C/kernel-lab ab --family sgemm v19 v21 --gemm-sizes 64x4096x4096,128x4096x4096,256x4096x4096,48x4096x4096,1000x1000x1000,1024x1024x1024,127x8191x1024,768x768x768 > $O/ab-v19-v21.txt 2>&1; echo "ab v19 v21 exit $?" >> $O/summary.txt
timeout 120 $C/kernel-lab ab --family sgemm v15 v22 --gemm-sizes 512x512x512,32x4096x4096,24x2048x1024,384x384x384,300x300x200 > $O/ab-v15-v22.txt 2>&1; echo "ab v15 v22 exit $?" >> $O/summary.txt
echo "t=$(( $(date +%s)-S ))" >> $O/summary.txt
for rule in default 2,256 3,256 4,256; do
  if [ $rule = default ]; then unset KERNEL_LAB_SGEMM_FIXED_SPLIT; else export KERNEL_LAB_SGEMM_FIXED_SPLIT=$rule; fi
  echo "== rule $rule ==" >> $O/split.txt
  timeout 60 $C/kernel-lab --family sgemm --steps sgemm:v21,v22 --gemm-sizes 1000x1000x1000,127x8191x1024,1024x1024x1024,512x512x512 >> $O/split.txt 2>&1
done
unset KERNEL_LAB_SGEMM_FIXED_SPLIT
echo "t=$(( $(date +%s)-S ))" >> $O/summary.txt
timeout 150 $C/kernel-lab --family gemm --dtype f32 --json $O/sweep.json --out /tmp/rep > $O/sweep.txt 2>&1; echo "sweep f32 exit $?" >> $O/summary.txt
echo "t=$(( $(date +%s)-S ))" >> $O/summary.txt
cat $O/summary.txt; cat $O/ab-v19-v21.txt $O/ab-v15-v22.txt | grep -E "x[0-9]+x"; grep -E "^(v21|v22|cuBLAS)|== rule" $O/split.txt | head -40
cd /tmp && tar czf $OUT/call1.tgz c1
