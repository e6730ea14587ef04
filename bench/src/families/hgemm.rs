//! The block-level HGEMM family: `C (M×N) = A (M×K) · B (K×N)`, f16 in and out, f32 (or, for `v9h`,
//! f16) accumulation, row-major; the launch of a step from its descriptor (`steps::hgemm`: pointers or
//! TMA tensor maps, tiles or a persistent grid), the cuBLAS baseline (`cublasGemmEx`, f16 A/B/C, 32F or
//! 16F compute, on the column-major view `Cᵀ = Bᵀ·Aᵀ`), an f64 reference, and the family's two tables in
//! the GEMM loop ([`Hgemm`], [`HgemmF16Acc`]).
use cudarc::{
    cublas::{CudaBlas, sys as blas_sys},
    driver::{CudaSlice, DevicePtr, DevicePtrMut},
};
use half::f16;


use kernel_lab::gemm::launch::{Operand, Workspace};

use crate::{
    error::{Error, Result},
    families::gemm::{self, GemmFamily, Shape},
    model::traces::{self, BlockCost},
    runtime::{device_check::ElemKind, gpu::{Gpu, Kernel}},
    steps::{
        gemm::{Accumulate, Elem},
        hgemm::{STEPS, Step, Trace},
    },
};

/// Relative L2 tolerance of `step` on `s` against an f64 reference (or cuBLAS): [`TOL`] for f32
/// accumulation. With f16 accumulation each of the ⌈K/16⌉ `mma` steps rounds the running sums to f16
/// (relative error ≤ 2^-11 each); for random-sign data those errors add like a random walk, ≈ 2^-11 ·
/// √⌈K/16⌉ relative in L2, and the reference it is compared with may carry as much again (cuBLAS 16F
/// for large shapes): [`TOL`] + 2^-10 · √⌈K/16⌉ (1.8e-2 at K = 4096, 2.4e-2 at 8192).
pub fn tolerance(step: &Step, s: Shape) -> f64 {
    match step.acc {
        Accumulate::F32 => TOL,
        Accumulate::F16 => TOL + (s.k.div_ceil(16) as f64).sqrt() / 1024.0,
    }
}

/// Relative L2 tolerance against an f64 reference of the f16 inputs: f32 accumulation is exact enough;
/// the error is the final rounding to f16 (2^-11 relative, ~3e-4 in L2) — 2e-3 leaves room.
pub const TOL: f64 = 2e-3;

thread_local! {
    /// The suite's one workspace for launching steps one by one (a plan owns its own; the suite launches
    /// every step of the ladder on the same buffers, so one set of split-K buffers and maps serves all).
    static WORKSPACE: std::cell::RefCell<Workspace> = std::cell::RefCell::new(Workspace::new());
}

/// Enqueues `c = a · b` with `step`'s kernel (already loaded as `kernel`) on whole buffers, through the
/// library's launcher ([`Workspace::launch`]).
pub fn launch(gpu: &Gpu, kernel: &Kernel, step: &Step, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
    let (a, b, c) = (Operand::of(gpu, a), Operand::of(gpu, b), Operand::of(gpu, c));
    WORKSPACE.with(|w| w.borrow_mut().launch(gpu, kernel, step, s, a, b, c))
}

pub use kernel_lab::gemm::launch::split_k;

/// cuBLAS HGEMM baseline: `cublasGemmEx` with f16 A, B, C and `CUBLAS_COMPUTE_32F`, row-major via the
/// column-major view `Cᵀ = Bᵀ · Aᵀ`.
pub struct CublasHgemm {
    blas: CudaBlas,
    /// `CUBLAS_COMPUTE_16F` (f16 accumulation) instead of `CUBLAS_COMPUTE_32F`.
    f16_compute: bool,
    /// bf16 A, B and C (`CUDA_R_16BF`, 32F compute) instead of f16.
    bf16: bool,
}

impl CublasHgemm {
    /// A handle on the library's stream.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        // SAFETY: only tries to dlopen libcublas.
        if !unsafe { blas_sys::is_culib_present() } {
            return Err(Error::NoGpu("libcublas was not found (the HGEMM baseline needs it)".into()));
        }
        let blas = CudaBlas::new(gpu.stream.clone()).map_err(|source| Error::Cublas { what: "cublasCreate".into(), source })?;
        Ok(CublasHgemm { blas, f16_compute: false, bf16: false })
    }

    /// As [`CublasHgemm::new`], computing in f16 (`CUBLAS_COMPUTE_16F`: f16 accumulation, f16 scalars):
    /// the baseline of the f16-accumulate step.
    pub fn new_f16_compute(gpu: &Gpu) -> Result<Self> {
        Ok(CublasHgemm { f16_compute: true, ..Self::new(gpu)? })
    }

    /// As [`CublasHgemm::new`] on bf16 matrices (`CUDA_R_16BF`, `CUBLAS_COMPUTE_32F`): the bf16 baseline.
    pub fn new_bf16(gpu: &Gpu) -> Result<Self> {
        Ok(CublasHgemm { bf16: true, ..Self::new(gpu)? })
    }

    /// Enqueues `c = a · b` (row-major f16).
    pub fn gemm(&self, gpu: &Gpu, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
        s.check_buffers("f16", a.len(), b.len(), c.len())?;
        let (alpha, beta) = (1.0f32, 0.0f32);
        let (alpha_h, beta_h) = (half::f16::ONE, half::f16::ZERO);
        // 32F compute takes f32 scalars, 16F compute f16 ones (host pointers, the handle's default mode).
        let (p_alpha, p_beta, compute) = if self.f16_compute {
            (&alpha_h as *const half::f16 as *const _, &beta_h as *const half::f16 as *const _, blas_sys::cublasComputeType_t::CUBLAS_COMPUTE_16F)
        } else {
            (&alpha as *const f32 as *const _, &beta as *const f32 as *const _, blas_sys::cublasComputeType_t::CUBLAS_COMPUTE_32F)
        };
        let (pa, _ga) = a.device_ptr(&gpu.stream);
        let (pb, _gb) = b.device_ptr(&gpu.stream);
        let (pc, _gc) = c.device_ptr_mut(&gpu.stream);
        let op = blas_sys::cublasOperation_t::CUBLAS_OP_N;
        let f16t = if self.bf16 { blas_sys::cudaDataType::CUDA_R_16BF } else { blas_sys::cudaDataType::CUDA_R_16F };
        // SAFETY: column-major (n × k) B, (k × m) A, (n × m) C, leading dimensions n, k, n — the row-major
        // buffers, lengths checked; alpha/beta on the host, of the compute type's scalar type, alive
        // until the call returns (cuBLAS reads host scalars before returning).
        unsafe {
            cudarc::cublas::result::gemm_ex(*self.blas.handle(), op, op, s.n as i32, s.m as i32, s.k as i32,
                p_alpha, pb as *const _, f16t, s.n as i32, pa as *const _, f16t, s.k as i32,
                p_beta, pc as *mut _, f16t, s.n as i32, compute, blas_sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT)
        }.map_err(|source| Error::Cublas { what: format!("cublasGemmEx {} ({} compute) {s}", if self.bf16 { "bf16" } else { "f16" }, if self.f16_compute { "16F" } else { "32F" }), source })
    }
}

/// `C = A · B` in f64 on the CPU from f16 inputs (all cores).
pub fn reference_f64(a: &[f16], b: &[f16], s: Shape) -> Vec<f64> {
    let af: Vec<f32> = a.iter().map(|v| v.to_f32()).collect();
    let bf: Vec<f32> = b.iter().map(|v| v.to_f32()).collect();
    gemm::reference_f64(&af, &bf, s)
}

/// The HGEMM table: every step that accumulates in f32, against cuBLAS 32F compute.
pub struct Hgemm;

impl GemmFamily for Hgemm {
    type Elem = u16;
    type Trace = Trace;
    type Baseline = CublasHgemm;
    const NAME: &'static str = "hgemm";
    /// Not multiples of 128/256/32; K or N not multiples of 8 are declined by v2+ with the reason.
    const CHECK_SHAPES: &'static [(usize, usize, usize)] = &[(1000, 1000, 1000), (4097, 129, 40), (1, 8, 8), (130, 264, 72), (257, 100, 24), (33, 9, 13), (300, 520, 192)];
    fn tolerance(st: &Step, s: Shape) -> f64 { tolerance(st, s) }
    const BASELINE: &'static str = "cublasGemmEx f16/32F";
    fn steps() -> Vec<&'static Step> { STEPS.iter().filter(|s| s.acc == Accumulate::F32 && s.elem == Elem::F16).collect() }
    const KIND: ElemKind = ElemKind::F16;
    fn poison() -> u16 { 0xFFFF }
    fn to_f64(x: u16) -> f64 { f16::from_bits(x).to_f64() }
    fn reference(a: &[u16], b: &[u16], s: Shape) -> Vec<f64> {
        let h = |x: &[u16]| x.iter().map(|&v| f16::from_bits(v)).collect::<Vec<_>>();
        reference_f64(&h(a), &h(b), s)
    }
    fn baseline(gpu: &Gpu) -> Result<CublasHgemm> { CublasHgemm::new(gpu) }
    fn run_baseline(bl: &CublasHgemm, gpu: &Gpu, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
        bl.gemm(gpu, s, a, b, c)
    }
    fn launch(gpu: &Gpu, k: &Kernel, st: &Step, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
        launch(gpu, k, st, s, a, b, c)
    }
    fn predicted(st: &Step, s: Shape) -> Option<BlockCost> { traces::hgemm::launch(st, s) }
}

/// The f16-accumulate steps (`v9h`) against cuBLAS in 16F compute: the same inputs and outputs as
/// [`Hgemm`], a K-dependent tolerance ([`tolerance`]).
pub struct HgemmF16Acc;

impl GemmFamily for HgemmF16Acc {
    type Elem = u16;
    type Trace = Trace;
    type Baseline = CublasHgemm;
    const NAME: &'static str = "hgemm16";
    const CHECK_SHAPES: &'static [(usize, usize, usize)] = Hgemm::CHECK_SHAPES;
    const BASELINE: &'static str = "cublasGemmEx f16/16F";
    fn tolerance(st: &Step, s: Shape) -> f64 { tolerance(st, s) }
    fn steps() -> Vec<&'static Step> { STEPS.iter().filter(|s| s.acc == Accumulate::F16).collect() }
    const KIND: ElemKind = ElemKind::F16;
    fn poison() -> u16 { Hgemm::poison() }
    fn to_f64(x: u16) -> f64 { Hgemm::to_f64(x) }
    fn reference(a: &[u16], b: &[u16], s: Shape) -> Vec<f64> { Hgemm::reference(a, b, s) }
    fn baseline(gpu: &Gpu) -> Result<CublasHgemm> { CublasHgemm::new_f16_compute(gpu) }
    fn run_baseline(bl: &CublasHgemm, gpu: &Gpu, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
        bl.gemm(gpu, s, a, b, c)
    }
    fn launch(gpu: &Gpu, k: &Kernel, st: &Step, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
        launch(gpu, k, st, s, a, b, c)
    }
    fn predicted(st: &Step, s: Shape) -> Option<BlockCost> { traces::hgemm::launch(st, s) }
}

/// The bf16 steps (h6, d2, d2m64 on bf16) against cuBLAS GemmEx on bf16 with 32F compute.
pub struct HgemmBf16;

/// Relative L2 tolerance of a bf16 output against the f64 reference of its bf16 inputs: the final
/// rounding to bf16 (8 significant bits: 2^-9 relative, ~1.1e-3 in L2 for random data) dominates f32
/// accumulation; 8e-3 leaves room, and a wrong element type or layout is off by O(1).
pub const TOL_BF16: f64 = 8e-3;

impl GemmFamily for HgemmBf16 {
    type Elem = u16;
    type Trace = Trace;
    type Baseline = CublasHgemm;
    const NAME: &'static str = "hgemm-bf16";
    const CHECK_SHAPES: &'static [(usize, usize, usize)] = Hgemm::CHECK_SHAPES;
    const BASELINE: &'static str = "cublasGemmEx bf16/32F";
    const KIND: ElemKind = ElemKind::Bf16;
    fn tolerance(_: &Step, _: Shape) -> f64 { TOL_BF16 }
    fn steps() -> Vec<&'static Step> { STEPS.iter().filter(|s| s.elem == Elem::Bf16).collect() }
    fn poison() -> u16 { 0xFFFF }
    fn to_f64(x: u16) -> f64 { half::bf16::from_bits(x).to_f64() }
    fn reference(a: &[u16], b: &[u16], s: Shape) -> Vec<f64> {
        let w = |x: &[u16]| x.iter().map(|&v| half::bf16::from_bits(v).to_f32()).collect::<Vec<_>>();
        gemm::reference_f64(&w(a), &w(b), s)
    }
    fn baseline(gpu: &Gpu) -> Result<CublasHgemm> { CublasHgemm::new_bf16(gpu) }
    fn run_baseline(bl: &CublasHgemm, gpu: &Gpu, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
        bl.gemm(gpu, s, a, b, c)
    }
    fn launch(gpu: &Gpu, k: &Kernel, st: &Step, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
        launch(gpu, k, st, s, a, b, c)
    }
    fn predicted(st: &Step, s: Shape) -> Option<BlockCost> { traces::hgemm::launch(st, s) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::{Target, gemm::Args, hgemm};

    #[test]
    fn the_two_tables_split_the_ladder_by_accumulator() {
        assert_eq!(Hgemm::steps().len() + HgemmF16Acc::steps().len() + HgemmBf16::steps().len(), STEPS.len());
        assert_eq!(HgemmBf16::steps().iter().map(|s| s.kernel.step).collect::<Vec<_>>(), ["h6-bf16", "h6s4-bf16", "h9-bf16", "h9s4-bf16", "h10-bf16", "h11-bf16", "h12-bf16", "h7-bf16", "h8x2-bf16", "h8x3-bf16", "h8x4-bf16", "h8x5-bf16", "h8x6-bf16", "h8x7-bf16", "h8x8-bf16", "d2-bf16", "d2m64-bf16", "d3-bf16", "d4-bf16", "d7-bf16", "d8-bf16", "d9-bf16", "d10-bf16", "d11-bf16", "d12-bf16", "d13-bf16", "d14-bf16", "d15-bf16", "d16-bf16", "d19-bf16", "d21r80-bf16", "d21r96-bf16", "d21r144-bf16", "d21r160-bf16", "d22r80-bf16", "d22r96-bf16", "d22r144-bf16", "d22r160-bf16", "d22r128-bf16", "d23-bf16", "d24-bf16", "d24m64-bf16", "d24m128-bf16", "d25-bf16", "d27-bf16", "d28x2-bf16", "d28x4-bf16", "d28x8-bf16", "d28m64x2-bf16", "d28m64x4-bf16", "d28m64x8-bf16", "d28m128x2-bf16", "d28m128x4-bf16", "d28m128x8-bf16"]);
        assert_eq!(HgemmF16Acc::steps().iter().map(|s| s.kernel.step).collect::<Vec<_>>(), ["v9h"]);
        // The TMA steps, and only they, live in the sm_90a module (skipped with a reason elsewhere).
        for st in STEPS {
            assert_eq!(!matches!(st.args, Args::Pointers | Args::SplitK { .. }), st.kernel.target == Target::Sm90a, "{}", st.kernel.step);
        }
        let s = Shape::new(64, 64, 4096).unwrap();
        assert_eq!(tolerance(&hgemm::V9, s), TOL);
        assert!((tolerance(&hgemm::V9H, s) - (TOL + 16.0 / 1024.0)).abs() < 1e-12);
    }
}
