cd .carry; gunzip -f *.gz tests/*.gz; chmod +x kernel-lab tests/*; cd ..
O=/tmp/c1; rm -rf $O; mkdir -p $O; C=.carry
{ echo "commit $(cat $C/COMMIT | tr '\n' ' ')"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv; } > $O/gpu.txt 2>&1
cat $O/gpu.txt
timeout 300 $C/tests/fp8 --test-threads=1 > $O/fp8-tests.txt 2>&1; echo "fp8 tests: $?"; grep -E "test result|FAILED|panicked|SKIP" $O/fp8-tests.txt | head
SH="130x264x400,400x392x400,193x200x2064,2048x11008x4096,385x584x1024,1x8x16,192x192x128"
timeout 200 $C/kernel-lab --check --family fp8 --steps fp8:f17,fp8:f14 --gemm-sizes $SH > $O/check.txt 2>&1; echo "check f17: $?"; tail -15 $O/check.txt
ptxas -arch=sm_90a -v $C/kernels_sm_90a.ptx -o /tmp/sm90a.cubin 2> /tmp/ptxas.txt && cuobjdump -sass /tmp/sm90a.cubin > /tmp/sm90a.sass
awk '/Function :/ {on = ($3 == "fp8_gemm_v17")} on' /tmp/sm90a.sass > $O/sass-f17.txt
echo "SASS f17: $(grep -oE '[HQ]GMMA\.[0-9A-Za-z.]+' $O/sass-f17.txt | sort | uniq -c | tr '\n' ' ') LDL/STL $(grep -cE 'LDL|STL' $O/sass-f17.txt)" | tee -a $O/gpu.txt
grep -A3 "fp8_gemm_v17" /tmp/ptxas.txt | grep -E "registers|spill" | tee -a $O/gpu.txt; gzip $O/sass-f17.txt
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool $C/kernel-lab --check --family fp8 --steps fp8:f17 --gemm-sizes 400x392x400,193x200x2064 > $O/san-$tool.txt 2>&1
  echo "sanitizer $tool: exit $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/san-$tool.txt | tr '\n' ' ')"
done
gzip $O/san-*.txt
SIX="2048x11008x4096,4096x4096x4096,8192x8192x8192,2048x4096x11008,2048x14336x4096,4096x28672x8192"
timeout 240 $C/kernel-lab ab --family fp8 f14 f17 --gemm-sizes $SIX --json $O/ab-f14-f17.json > $O/ab-f14-f17.txt 2>&1; echo "ab: $?"; cat $O/ab-f14-f17.txt
timeout 400 $C/kernel-lab --family fp8 --steps fp8:f12,fp8:f14,fp8:f17 --gemm-sizes $SIX --json $O/fp8.json > $O/fp8-timed.txt 2>&1; echo "timed: $?"; cat $O/fp8-timed.txt | head -60
cd /tmp && tar czf $OUT/call1.tgz c1
