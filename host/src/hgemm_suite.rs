//! The HGEMM family in the shared GEMM suite loop (`gemm_suite`): f16 in and out (as `u16` bits), f32
//! accumulation, cuBLAS `GemmEx` f16/32F.
use cudarc::driver::CudaSlice;
use half::f16;
use rand::{Rng, rngs::SmallRng};

use crate::{
    error::Result,
    gemm_suite::GemmFamily,
    gpu::{Gpu, Kernel},
    hgemm::{self, CublasHgemm, Step},
    sgemm::Shape,
    traces::{self, BlockCost},
};

/// The HGEMM family: every step that accumulates in f32 (all but `v9h`), against cuBLAS 32F compute.
pub struct Hgemm;

/// [`Hgemm`]'s steps: [`Step::ALL`] without the f16-accumulate one.
const F32_STEPS: [Step; Step::ALL.len() - 1] = {
    let mut out = [Step::V1; Step::ALL.len() - 1];
    let (mut i, mut j) = (0, 0);
    while i < Step::ALL.len() {
        if !matches!(Step::ALL[i], Step::V9H) {
            out[j] = Step::ALL[i];
            j += 1;
        }
        i += 1;
    }
    assert!(j == out.len());
    out
};

impl GemmFamily for Hgemm {
    type Elem = u16;
    type Step = Step;
    type Baseline = CublasHgemm;
    /// Not multiples of 128/256/32; K or N not multiples of 8 are rejected by v2+ with the reason.
    const CHECK_SHAPES: &'static [(usize, usize, usize)] = &[(1000, 1000, 1000), (4097, 129, 40), (1, 8, 8), (130, 264, 72), (257, 100, 24), (33, 9, 13), (300, 520, 192)];
    fn tolerance(st: Step, s: Shape) -> f64 { st.tolerance(s) }
    const BASELINE: &'static str = "cublasGemmEx f16/32F";
    fn steps() -> &'static [Step] { &F32_STEPS }
    fn label(s: Step) -> &'static str { s.label() }
    fn kernel_name(s: Step) -> &'static str { s.kernel_name() }
    fn random(rng: &mut SmallRng, n: usize) -> Vec<u16> { (0..n).map(|_| f16::from_f32(rng.random_range(-1.0f32..1.0)).to_bits()).collect() }
    fn poison() -> u16 { 0xFFFF }
    fn to_f64(x: u16) -> f64 { f16::from_bits(x).to_f64() }
    fn reference(a: &[u16], b: &[u16], s: Shape) -> Vec<f64> {
        let h = |x: &[u16]| x.iter().map(|&v| f16::from_bits(v)).collect::<Vec<_>>();
        hgemm::reference_f64(&h(a), &h(b), s)
    }
    fn baseline(gpu: &Gpu) -> Result<CublasHgemm> { CublasHgemm::new(gpu) }
    fn run_baseline(bl: &CublasHgemm, gpu: &Gpu, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
        bl.gemm(gpu, s, a, b, c)
    }
    fn launch(gpu: &Gpu, k: &Kernel, st: Step, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
        hgemm::launch(gpu, k, st, s, a, b, c)
    }
    fn predicted(st: Step, s: Shape) -> Option<BlockCost> { traces::hgemm::launch(st, s) }
}

/// The f16-accumulate HGEMM step (`v9h`) against cuBLAS in 16F compute (the optional variant):
/// the same inputs and outputs as [`Hgemm`], a K-dependent tolerance (`Step::tolerance`).
pub struct HgemmF16Acc;

impl GemmFamily for HgemmF16Acc {
    type Elem = u16;
    type Step = Step;
    type Baseline = CublasHgemm;
    const CHECK_SHAPES: &'static [(usize, usize, usize)] = Hgemm::CHECK_SHAPES;
    const BASELINE: &'static str = "cublasGemmEx f16/16F";
    fn tolerance(st: Step, s: Shape) -> f64 { st.tolerance(s) }
    fn steps() -> &'static [Step] { &[Step::V9H] }
    fn label(s: Step) -> &'static str { s.label() }
    fn kernel_name(s: Step) -> &'static str { s.kernel_name() }
    fn random(rng: &mut SmallRng, n: usize) -> Vec<u16> { Hgemm::random(rng, n) }
    fn poison() -> u16 { Hgemm::poison() }
    fn to_f64(x: u16) -> f64 { Hgemm::to_f64(x) }
    fn reference(a: &[u16], b: &[u16], s: Shape) -> Vec<f64> { Hgemm::reference(a, b, s) }
    fn baseline(gpu: &Gpu) -> Result<CublasHgemm> { CublasHgemm::new_f16_compute(gpu) }
    fn run_baseline(bl: &CublasHgemm, gpu: &Gpu, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
        bl.gemm(gpu, s, a, b, c)
    }
    fn launch(gpu: &Gpu, k: &Kernel, st: Step, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
        hgemm::launch(gpu, k, st, s, a, b, c)
    }
    fn predicted(st: Step, s: Shape) -> Option<BlockCost> { traces::hgemm::launch(st, s) }
}
