//! `cargo bench --bench gemm`: every SGEMM and HGEMM step and their cuBLAS baselines at 4096³, timed
//! with CUDA events through criterion's `iter_custom`. Without a GPU it prints a skip notice and exits.
use benches::{gpu_or_skip, gpu_time};
use criterion::{BenchmarkId, Criterion, Throughput};
use half::f16;
use kernel_lab::{
    families::{gemm::Shape, hgemm, sgemm},
    runtime::verify,
    steps,
};
use rand::Rng;

fn bench_gemm(c: &mut Criterion) {
    let Some(gpu) = gpu_or_skip("gemm") else { return };
    let s = Shape::new(4096, 4096, 4096).expect("valid shape");
    let mut rng = verify::rng(verify::fresh_seed());
    {
        let mut group = c.benchmark_group("sgemm");
        group.throughput(Throughput::Elements(s.flops() as u64));
        let a: Vec<f32> = (0..s.m * s.k).map(|_| rng.random_range(-1.0f32..1.0)).collect();
        let b: Vec<f32> = (0..s.k * s.n).map(|_| rng.random_range(-1.0f32..1.0)).collect();
        let (d_a, d_b) = (gpu.upload(&a).expect("upload"), gpu.upload(&b).expect("upload"));
        let mut d_c = gpu.zeros::<f32>(s.m * s.n).expect("alloc");
        if let Ok(bl) = sgemm::CublasSgemm::new(&gpu) {
            group.bench_function(BenchmarkId::new("cuBLAS", s), |bn| bn.iter_custom(|it| gpu_time(&gpu, it, || bl.gemm(&gpu, s, &d_a, &d_b, &mut d_c)).expect("cublas")));
        }
        for step in steps::sgemm::STEPS {
            let k = match gpu.kernel(step.kernel.name) {
                Ok(k) => k,
                Err(e) => {
                    eprintln!("sgemm {}: skipped ({e})", step.kernel.step);
                    continue;
                }
            };
            group.bench_function(BenchmarkId::new(step.kernel.step, s), |bn| {
                bn.iter_custom(|it| gpu_time(&gpu, it, || sgemm::launch(&gpu, &k, step, s, &d_a, &d_b, &mut d_c)).expect("sgemm"))
            });
        }
        group.finish();
    }
    {
        let mut group = c.benchmark_group("hgemm");
        group.throughput(Throughput::Elements(s.flops() as u64));
        let a: Vec<u16> = (0..s.m * s.k).map(|_| f16::from_f32(rng.random_range(-1.0f32..1.0)).to_bits()).collect();
        let b: Vec<u16> = (0..s.k * s.n).map(|_| f16::from_f32(rng.random_range(-1.0f32..1.0)).to_bits()).collect();
        let (d_a, d_b) = (gpu.upload(&a).expect("upload"), gpu.upload(&b).expect("upload"));
        let mut d_c = gpu.zeros::<u16>(s.m * s.n).expect("alloc");
        if let Ok(bl) = hgemm::CublasHgemm::new(&gpu) {
            group.bench_function(BenchmarkId::new("cuBLAS", s), |bn| bn.iter_custom(|it| gpu_time(&gpu, it, || bl.gemm(&gpu, s, &d_a, &d_b, &mut d_c)).expect("cublas")));
        }
        // The f16 steps (the bf16 twins time the same kernels on other bits: the suite's hgemm_bf16 table).
        for step in steps::hgemm::STEPS.iter().filter(|s| s.elem == steps::gemm::Elem::F16) {
            let k = match gpu.kernel(step.kernel.name) {
                Ok(k) => k,
                Err(e) => {
                    eprintln!("hgemm {}: skipped ({e})", step.kernel.step);
                    continue;
                }
            };
            group.bench_function(BenchmarkId::new(step.kernel.step, s), |bn| {
                bn.iter_custom(|it| gpu_time(&gpu, it, || hgemm::launch(&gpu, &k, step, s, &d_a, &d_b, &mut d_c)).expect("hgemm"))
            });
        }
        group.finish();
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args().sample_size(10).warm_up_time(std::time::Duration::from_millis(300));
    bench_gemm(&mut c);
    c.final_summary();
}
