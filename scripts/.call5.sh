cd .carry; gunzip -f *.gz tests/*.gz; chmod +x kernel-lab tests/*; cd ..
O=/tmp/c5; rm -rf $O; mkdir -p $O; C=.carry
{ echo "commit $(cat $C/COMMIT | tr '\n' ' ')"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv; } > $O/gpu.txt 2>&1
cat $O/gpu.txt
for t in gpu fp8 attention; do
  timeout 420 $C/tests/$t --test-threads=1 > $O/tests-$t.txt 2>&1; echo "$t tests: $?"; grep -E "test result|FAILED|panicked" $O/tests-$t.txt | head -5
done
timeout 400 $C/kernel-lab --check --family hgemm,fp8,gemm > $O/check.txt 2>&1; echo "check hgemm,fp8,gemm: $?"; grep -ciE "fail|mismatch|error" $O/check.txt
SIX="2048x11008x4096,4096x4096x4096,8192x8192x8192,2048x4096x11008,2048x14336x4096,4096x28672x8192"
timeout 200 $C/kernel-lab ab --family fp8 f14 f18 --gemm-sizes 4096x28672x8192,2048x11008x4096 --rounds 12 > $O/ab-f14-f18.txt 2>&1; echo "ab: $?"; tail -4 $O/ab-f14-f18.txt
timeout 200 $C/kernel-lab ab --family fp8 f16 f19 --gemm-sizes 4096x28672x8192,2048x4096x11008 --rounds 12 > $O/ab-f16-f19.txt 2>&1; echo "ab: $?"; tail -4 $O/ab-f16-f19.txt
cd /tmp && tar czf $OUT/call5.tgz c5
