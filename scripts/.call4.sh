cd .carry; gunzip -f *.gz tests/*.gz; chmod +x kernel-lab tests/*; cd ..
O=/tmp/c4; rm -rf $O; mkdir -p $O; C=.carry
{ echo "commit $(cat $C/COMMIT | tr '\n' ' ')"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv; } > $O/gpu.txt 2>&1
cat $O/gpu.txt
timeout 300 $C/tests/fp8 --test-threads=1 > $O/fp8-tests.txt 2>&1; echo "fp8 tests: $?"; grep -E "test result|FAILED|panicked|f20 " $O/fp8-tests.txt | head
timeout 200 $C/kernel-lab --check --family fp8 --steps fp8:f20,fp8:f19 --gemm-sizes 756x5368x528,4x8x16,196x200x2064,4096x4096x4096,2048x11008x4096 > $O/check.txt 2>&1; echo "check f20: $?"
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool $C/kernel-lab --check --family fp8 --steps fp8:f20 --gemm-sizes 756x5368x528,196x200x2064 > $O/san-$tool.txt 2>&1
  echo "sanitizer f20 $tool: exit $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/san-$tool.txt | tr '\n' ' ')"
done
gzip $O/san-*.txt
SIX="2048x11008x4096,4096x4096x4096,8192x8192x8192,2048x4096x11008,2048x14336x4096,4096x28672x8192"
timeout 200 $C/kernel-lab ab --family fp8 f19 f20 --gemm-sizes $SIX --json $O/ab-f19-f20.json > $O/ab-f19-f20.txt 2>&1; echo "ab: $?"; cat $O/ab-f19-f20.txt
timeout 420 $C/kernel-lab --family fp8 --steps fp8:f14,fp8:f18,fp8:f16,fp8:f19,fp8:f20 --gemm-sizes $SIX --json $O/fp8.json > $O/fp8-timed.txt 2>&1; echo "timed: $?"; grep -E "^(f14|f18|f16|f19|f20|cuBLAS) " $O/fp8-timed.txt | awk '{print $1, $2, $3, $4, $5, $NF, $(NF-1), $(NF-2)}'
cd /tmp && tar czf $OUT/call4.tgz c4
