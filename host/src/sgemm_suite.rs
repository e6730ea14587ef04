//! The SGEMM family in the shared GEMM suite loop (`gemm_suite`): f32 row-major, cuBLAS SGEMM (no TF32).
use cudarc::driver::CudaSlice;
use rand::{Rng, rngs::SmallRng};

use crate::{
    error::Result,
    gemm_suite::GemmFamily,
    gpu::{Gpu, Kernel},
    sgemm::{self, CublasSgemm, Shape, Step},
    traces::{self, BlockCost},
};

/// The SGEMM family.
pub struct Sgemm;

impl GemmFamily for Sgemm {
    type Elem = f32;
    type Step = Step;
    type Baseline = CublasSgemm;
    const CHECK_SHAPES: &'static [(usize, usize, usize)] = &[
        (1000, 1000, 1000), (4097, 129, 33), (1, 1, 1), (1, 300, 200), (300, 1, 200), (300, 200, 1),
        (129, 129, 129), (255, 257, 3), (130, 514, 66),
    ];
    /// f32 accumulation of up to 8192 terms in [-1, 1]: observed 5.7e-7 against f64.
    fn tolerance(_: Step, _: Shape) -> f64 { 1e-5 }
    const BASELINE: &'static str = "cublasSgemm";
    fn steps() -> &'static [Step] { &Step::ALL }
    fn label(s: Step) -> &'static str { s.label() }
    fn kernel_name(s: Step) -> &'static str { s.kernel_name() }
    fn random(rng: &mut SmallRng, n: usize) -> Vec<f32> { (0..n).map(|_| rng.random_range(-1.0f32..1.0)).collect() }
    fn poison() -> f32 { f32::NAN }
    fn to_f64(x: f32) -> f64 { x as f64 }
    fn reference(a: &[f32], b: &[f32], s: Shape) -> Vec<f64> { sgemm::reference_f64(a, b, s) }
    fn baseline(gpu: &Gpu) -> Result<CublasSgemm> { CublasSgemm::new(gpu) }
    fn run_baseline(bl: &CublasSgemm, gpu: &Gpu, s: Shape, a: &CudaSlice<f32>, b: &CudaSlice<f32>, c: &mut CudaSlice<f32>) -> Result<()> {
        bl.gemm(gpu, s, a, b, c)
    }
    fn launch(gpu: &Gpu, k: &Kernel, st: Step, s: Shape, a: &CudaSlice<f32>, b: &CudaSlice<f32>, c: &mut CudaSlice<f32>) -> Result<()> {
        sgemm::launch(gpu, k, st, s, a, b, c)
    }
    fn predicted(st: Step, s: Shape) -> Option<BlockCost> { traces::sgemm::launch(st, s) }
}
