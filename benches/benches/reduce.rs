//! `cargo bench --bench reduce`: every reduce step, cuBLAS (`sdot` with ones) and a device copy, on
//! 2^24 and 2^28 f32, timed with CUDA events. Without a GPU it prints a skip notice and exits cleanly.
use benches::{gpu_or_skip, gpu_time};
use criterion::{BenchmarkId, Criterion, Throughput};
use kernel_lab::{
    families::reduce::{self, CublasSum, ReducePlan},
    runtime::verify,
    steps::reduce::STEPS,
};

fn bench_reduce(c: &mut Criterion) {
    let Some(gpu) = gpu_or_skip("reduce") else { return };
    let mut group = c.benchmark_group("reduce");
    for n in [1usize << 24, 1 << 28] {
        let x = verify::uniform_f32(&mut verify::rng(verify::fresh_seed()), n);
        let input = gpu.upload(&x).expect("upload");
        group.throughput(Throughput::Bytes(4 * n as u64));
        let mut copy_dst = gpu.zeros::<f32>(n).expect("alloc");
        group.bench_function(BenchmarkId::new("copy (counts 4N of its 8N bytes)", n), |b| {
            b.iter_custom(|iters| gpu_time(&gpu, iters, || reduce::copy(&gpu, &input, &mut copy_dst)).expect("copy"))
        });
        if let Ok(mut blas) = CublasSum::new(&gpu, n) {
            group.bench_function(BenchmarkId::new("cuBLAS sdot", n), |b| {
                b.iter_custom(|iters| gpu_time(&gpu, iters, || blas.enqueue(&gpu, &input)).expect("cublas"))
            });
        }
        for step in STEPS {
            let mut plan = ReducePlan::new(&gpu, step, n).expect("plan");
            group.bench_function(BenchmarkId::new(step.kernel.step, n), |b| {
                b.iter_custom(|iters| gpu_time(&gpu, iters, || plan.enqueue(&input)).expect("reduce"))
            });
        }
    }
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args().sample_size(30).warm_up_time(std::time::Duration::from_millis(500));
    bench_reduce(&mut c);
    c.final_summary();
}
