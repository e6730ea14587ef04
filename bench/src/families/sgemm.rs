//! The SGEMM family (seed 004): `C (M×N) = A (M×K) · B (K×N)`, row-major f32, on CUDA cores; the launch
//! of a step from its descriptor (`steps::sgemm`), the cuBLAS baseline (`cublasSgemm`, default math mode:
//! no TF32) computing the same row-major product, and the family's place in the GEMM loop.
use cudarc::{
    cublas::{CudaBlas, sys as blas_sys},
    driver::{CudaSlice, DevicePtr, DevicePtrMut},
};

use kernel_lab::gemm::launch::Operand;

use crate::{
    error::{Error, Result},
    families::gemm::{self, GemmFamily, Shape},
    model::traces::{self, BlockCost},
    runtime::{device_check::ElemKind, gpu::{Gpu, Kernel}},
    steps::sgemm::{self as steps, Step, Trace},
};

/// Enqueues `c = a · b` with `step`'s kernel (already loaded as `kernel`) on whole buffers.
pub fn launch(gpu: &Gpu, kernel: &Kernel, step: &Step, s: Shape, a: &CudaSlice<f32>, b: &CudaSlice<f32>, c: &mut CudaSlice<f32>) -> Result<()> {
    let (a, b, c) = (Operand::of(gpu, a), Operand::of(gpu, b), Operand::of(gpu, c));
    kernel_lab::sgemm::launch::launch(gpu, kernel, step, s, a, b, c)
}

/// cuBLAS baseline computing the same row-major product: `cublasSgemm` on the column-major view
/// `Cᵀ = Bᵀ · Aᵀ` (a row-major matrix is its transpose in column-major), default math mode (FP32, no TF32).
pub struct CublasSgemm {
    blas: CudaBlas,
}

impl CublasSgemm {
    /// A handle on the library's stream.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        // SAFETY: only tries to dlopen libcublas.
        if !unsafe { blas_sys::is_culib_present() } {
            return Err(Error::NoGpu("libcublas was not found (the SGEMM baseline needs it)".into()));
        }
        let blas = CudaBlas::new(gpu.stream.clone()).map_err(|source| Error::Cublas { what: "cublasCreate".into(), source })?;
        // SAFETY: sets a mode on a live handle.
        unsafe { blas_sys::cublasSetMathMode(*blas.handle(), blas_sys::cublasMath_t::CUBLAS_DEFAULT_MATH) }.result()
            .map_err(|source| Error::Cublas { what: "cublasSetMathMode(DEFAULT: no TF32)".into(), source })?;
        Ok(CublasSgemm { blas })
    }

    /// Enqueues `c = a · b` (row-major).
    pub fn gemm(&self, gpu: &Gpu, s: Shape, a: &CudaSlice<f32>, b: &CudaSlice<f32>, c: &mut CudaSlice<f32>) -> Result<()> {
        s.check_buffers("f32", a.len(), b.len(), c.len())?;
        let (alpha, beta) = (1.0f32, 0.0f32);
        let (pa, _ga) = a.device_ptr(&gpu.stream);
        let (pb, _gb) = b.device_ptr(&gpu.stream);
        let (pc, _gc) = c.device_ptr_mut(&gpu.stream);
        let op = blas_sys::cublasOperation_t::CUBLAS_OP_N;
        // SAFETY: column-major (n × k) B, (k × m) A, (n × m) C with leading dimensions n, k, n: exactly the
        // row-major buffers, whose lengths were checked; alpha/beta are host scalars (default pointer mode).
        unsafe {
            blas_sys::cublasSgemm_v2(*self.blas.handle(), op, op, s.n as i32, s.m as i32, s.k as i32, &alpha,
                pb as *const f32, s.n as i32, pa as *const f32, s.k as i32, &beta, pc as *mut f32, s.n as i32).result()
        }.map_err(|source| Error::Cublas { what: format!("cublasSgemm {s}"), source })
    }
}

/// `C = A · B` in f64 on the CPU (all cores), row-major.
pub fn reference_f64(a: &[f32], b: &[f32], s: Shape) -> Vec<f64> {
    gemm::reference_f64(a, b, s)
}

/// The SGEMM family in the GEMM loop: f32 row-major, against cuBLAS SGEMM (no TF32).
pub struct Sgemm;

impl GemmFamily for Sgemm {
    type Elem = f32;
    type Trace = Trace;
    type Baseline = CublasSgemm;
    const NAME: &'static str = "sgemm";
    const CHECK_SHAPES: &'static [(usize, usize, usize)] = &[
        (1000, 1000, 1000), (4097, 129, 33), (1, 1, 1), (1, 300, 200), (300, 1, 200), (300, 200, 1),
        (129, 129, 129), (255, 257, 3), (130, 514, 66),
    ];
    /// f32 accumulation of up to 8192 terms in [-1, 1]: observed 5.7e-7 against f64.
    fn tolerance(_: &Step, _: Shape) -> f64 { 1e-5 }
    const BASELINE: &'static str = "cublasSgemm";
    fn steps() -> Vec<&'static Step> { steps::STEPS.iter().collect() }
    const KIND: ElemKind = ElemKind::F32;
    fn poison() -> f32 { f32::NAN }
    fn to_f64(x: f32) -> f64 { x as f64 }
    fn reference(a: &[f32], b: &[f32], s: Shape) -> Vec<f64> { reference_f64(a, b, s) }
    fn baseline(gpu: &Gpu) -> Result<CublasSgemm> { CublasSgemm::new(gpu) }
    fn run_baseline(bl: &CublasSgemm, gpu: &Gpu, s: Shape, a: &CudaSlice<f32>, b: &CudaSlice<f32>, c: &mut CudaSlice<f32>) -> Result<()> {
        bl.gemm(gpu, s, a, b, c)
    }
    fn launch(gpu: &Gpu, k: &Kernel, st: &Step, s: Shape, a: &CudaSlice<f32>, b: &CudaSlice<f32>, c: &mut CudaSlice<f32>) -> Result<()> {
        launch(gpu, k, st, s, a, b, c)
    }
    fn predicted(st: &Step, s: Shape) -> Option<BlockCost> { traces::sgemm::launch(st, s) }
}
