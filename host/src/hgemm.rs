//! The block-level HGEMM family: `C (M×N) = A (M×K) · B (K×N)`, f16 in and out, f32 accumulation,
//! row-major; launch geometry per step, the cuBLAS baseline (`cublasGemmEx`, f16 A/B/C, 32F compute,
//! on the column-major view `Cᵀ = Bᵀ·Aᵀ`), and an f64 reference.
use cudarc::{
    cublas::{CudaBlas, sys as blas_sys},
    driver::{CudaSlice, DevicePtr, DevicePtrMut},
};
use half::f16;

use layout::hopper::{TmaSwizzle, TmaTile2d};

use crate::{
    error::{Error, Result},
    gpu::{Gpu, Kernel},
    launch,
    sgemm::Shape,
    tma::TensorMap2d,
};

/// A step of the block ladder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Step { V1, V2, V3, V4, V5S2, V5, V5S4, V6, V7, V8, V9, V9S4, V9P, V10, V9H, H1, H2, H3, H4, H5, H6 }

impl Step {
    /// Every step.
    pub const ALL: [Step; 21] = [Step::V1, Step::V2, Step::V3, Step::V4, Step::V5S2, Step::V5, Step::V5S4, Step::V6, Step::V7, Step::V8, Step::V9, Step::V9S4, Step::V9P, Step::V10, Step::V9H, Step::H1, Step::H2, Step::H3, Step::H4, Step::H5, Step::H6];
    /// PTX entry.
    pub fn kernel_name(self) -> &'static str {
        ["hgemm_block_v1", "hgemm_block_v2", "hgemm_block_v3", "hgemm_block_v4", "hgemm_block_v5_s2", "hgemm_block_v5", "hgemm_block_v5_s4", "hgemm_block_v6", "hgemm_block_v7", "hgemm_block_v8", "hgemm_block_v9", "hgemm_block_v9_s4", "hgemm_block_v9_padded", "hgemm_block_v10", "hgemm_block_v9_f16acc", "hgemm_tma_v1", "hgemm_tma_v2", "hgemm_tma_v3", "hgemm_tma_v4", "hgemm_tma_v5", "hgemm_tma_v6"][self as usize]
    }
    /// Whether the step accumulates in f16 (`v9h`; the others in f32).
    pub fn f16_accumulate(self) -> bool {
        self == Step::V9H
    }
    /// Relative L2 tolerance against an f64 reference (or cuBLAS) on `s`: [`TOL`] for f32 accumulation.
    /// With f16 accumulation each of the ⌈K/16⌉ `mma` steps rounds the running sums to f16 (relative
    /// error ≤ 2^-11 each); for random-sign data those errors add like a random walk, ≈ 2^-11 ·
    /// √⌈K/16⌉ relative in L2, and the reference it is compared with may carry as much again (cuBLAS
    /// 16F for large shapes): [`TOL`] + 2^-10 · √⌈K/16⌉ (1.8e-2 at K = 4096, 2.4e-2 at 8192).
    pub fn tolerance(self, s: Shape) -> f64 {
        if self.f16_accumulate() { TOL + (s.k.div_ceil(16) as f64).sqrt() / 1024.0 } else { TOL }
    }
    /// The Hopper steps (h1–h6): TMA + `wgmma`, sm_90a only.
    pub fn is_tma(self) -> bool {
        matches!(self, Step::H1 | Step::H2 | Step::H3 | Step::H4 | Step::H5 | Step::H6)
    }
    /// `v1` …
    pub fn label(self) -> &'static str {
        ["v1", "v2", "v3", "v4", "v5s2", "v5", "v5s4", "v6", "v7", "v8", "v9", "v9s4", "v9p", "v10", "v9h", "h1", "h2", "h3", "h4", "h5", "h6"][self as usize]
    }
}

/// Relative L2 tolerance against an f64 reference of the f16 inputs: f32 accumulation is exact enough;
/// the error is the final rounding to f16 (2^-11 relative, ~3e-4 in L2) — 2e-3 leaves room.
pub const TOL: f64 = 2e-3;

/// Enqueues `c = a · b` with `step`'s kernel. Steps v2–v5 copy 16-byte rows: K and N must be multiples
/// of 8, and other shapes are rejected with that reason (v1 takes any shape).
pub fn launch(gpu: &Gpu, kernel: &Kernel, step: Step, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
    s.check_buffers("f16", a.len(), b.len(), c.len())?;
    if step.is_tma() && (s.k % 8 != 0 || s.n % 8 != 0) {
        return Err(Error::InvalidInput(format!(
            "{} reads A and B through TMA tensor maps, whose row strides must be multiples of 16 bytes: K and N must be multiples of 8 \
             (got {s}); ragged M, N, K edges are zero-filled by the TMA; v1 handles any shape", kernel.name())));
    }
    if step != Step::V1 && (s.k % 8 != 0 || s.n % 8 != 0) {
        return Err(Error::InvalidInput(format!(
            "{} loads 16-byte rows of f16: K and N must be multiples of 8 (got {s}); v1 handles any shape", kernel.name())));
    }
    if step.is_tma() {
        return launch_tma(gpu, kernel, step, s, a, b, c);
    }
    let (bm, bn) = if step == Step::V1 { (16, 16) } else { (layout::hgemm::BM, layout::hgemm::BN) };
    let grid = ((s.n as u32).div_ceil(bn), (s.m as u32).div_ceil(bm));
    if grid.1 > 65_535 {
        return Err(Error::InvalidInput(format!("M = {} needs {} block rows, above 65535", s.m, grid.1)));
    }
    let (m, n, k) = (s.m as u32, s.n as u32, s.k as u32);
    // SAFETY: every hgemm kernel takes (a: M·K f16, b: K·N f16, c: M·N f16, m, n, k) — lengths checked;
    // buffers are fresh 256-byte-aligned allocations; K, N multiples of 8 for v2–v5 (checked); grid,
    // block size and shared memory as registered.
    unsafe { launch!(gpu, kernel, grid = grid, a, b, c, &m, &n, &k) }
}

/// The tensor maps of one (A, B, C, shape): A (box 64 K × 128 rows), B (box 64 N × 64 K rows), C (box
/// 64 × 64, used by the TMA-store step), all `SWIZZLE_128B`.
struct TmaMaps {
    key: (u64, u64, u64, Shape),
    a: TensorMap2d,
    b: TensorMap2d,
    c: TensorMap2d,
}

thread_local! {
    /// Tensor maps of the last (A, B, C, shape) launched with a TMA step, so timed repetitions do not
    /// re-encode and re-upload them (three 128-byte copies per launch would be timed with the kernel).
    static TMA_MAPS: std::cell::RefCell<Option<TmaMaps>> = const { std::cell::RefCell::new(None) };
}

/// Launches a TMA step (`hgemm_tma_v*`, block and dynamic shared memory as registered) with the tensor
/// maps of [`TmaMaps`]; grid `(⌈N/bn⌉, ⌈M/128⌉)` for the step's tile width `bn`, or one CTA per SM for the
/// persistent h5/h6.
fn launch_tma(gpu: &Gpu, kernel: &Kernel, step: Step, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
    let key = (a.device_ptr(&gpu.stream).0, b.device_ptr(&gpu.stream).0, c.device_ptr(&gpu.stream).0, s);
    use layout::hopper::tma_hgemm::{BK, BM, BN as BN_NARROW, BN_WIDE, C_BOX};
    // Every box is 64 f16 wide (128 bytes: the 128B swizzle span), as the kernels lay out their stages.
    let tile = |rows: usize, cols: usize, box_rows: u32| TmaTile2d {
        elem_bytes: 2, rows: rows as u64, cols: cols as u64, stride_bytes: 2 * cols as u64, box_rows, box_cols: C_BOX.box_cols, swizzle: TmaSwizzle::B128,
    };
    if !TMA_MAPS.with(|m| m.borrow().as_ref().is_some_and(|maps| maps.key == key)) {
        let maps = TmaMaps {
            key,
            a: TensorMap2d::encode_f16(gpu, a, tile(s.m, s.k, BM))?,
            b: TensorMap2d::encode_f16(gpu, b, tile(s.k, s.n, BK))?,
            c: TensorMap2d::encode_f16(gpu, c, tile(s.m, s.n, C_BOX.box_rows))?,
        };
        TMA_MAPS.with(|m| *m.borrow_mut() = Some(maps));
    }
    // Tile width: 128 for h1–h3, 256 from h4; h5 and h6 are persistent (one CTA per SM, 1-D grid).
    let persistent = matches!(step, Step::H5 | Step::H6);
    let bn = if matches!(step, Step::H1 | Step::H2 | Step::H3) { BN_NARROW } else { BN_WIDE };
    let (tiles_n, tiles_m) = ((s.n as u32).div_ceil(bn), (s.m as u32).div_ceil(BM));
    let grid = if persistent { ((tiles_n * tiles_m).min(gpu.info.sms.max(1)), 1) } else { (tiles_n, tiles_m) };
    if grid.1 > 65_535 {
        return Err(Error::InvalidInput(format!("M = {} needs {} block rows, above 65535", s.m, grid.1)));
    }
    let (m, n, k) = (s.m as u32, s.n as u32, s.k as u32);
    TMA_MAPS.with(|maps| {
        let maps = maps.borrow();
        let Some(maps) = maps.as_ref() else {
            return Err(Error::InvalidInput("TMA tensor maps missing after encoding (internal error)".into()));
        };
        // SAFETY: hgemm_tma_v1–v5 take (tmap_a, tmap_b, c: M·N f16, m, n, k), v6 takes (tmap_a, tmap_b,
        // tmap_c, m, n, k); the maps were encoded for these very buffers (same device pointers and shape:
        // the cache key) with the boxes the kernels expect; lengths checked by `launch`; K, N multiples
        // of 8 (checked); grid as computed for the step, block and shared memory as registered.
        if step == Step::H6 {
            unsafe { launch!(gpu, kernel, grid = grid, &maps.a.dev, &maps.b.dev, &maps.c.dev, &m, &n, &k) }
        } else {
            unsafe { launch!(gpu, kernel, grid = grid, &maps.a.dev, &maps.b.dev, c, &m, &n, &k) }
        }
    })
}

/// cuBLAS HGEMM baseline: `cublasGemmEx` with f16 A, B, C and `CUBLAS_COMPUTE_32F`, row-major via the
/// column-major view `Cᵀ = Bᵀ · Aᵀ`.
pub struct CublasHgemm {
    blas: CudaBlas,
    /// `CUBLAS_COMPUTE_16F` (f16 accumulation) instead of `CUBLAS_COMPUTE_32F`.
    f16_compute: bool,
}

impl CublasHgemm {
    /// A handle on the library's stream.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        // SAFETY: only tries to dlopen libcublas.
        if !unsafe { blas_sys::is_culib_present() } {
            return Err(Error::NoGpu("libcublas was not found (the HGEMM baseline needs it)".into()));
        }
        let blas = CudaBlas::new(gpu.stream.clone()).map_err(|source| Error::Cublas { what: "cublasCreate".into(), source })?;
        Ok(CublasHgemm { blas, f16_compute: false })
    }

    /// As [`CublasHgemm::new`], computing in f16 (`CUBLAS_COMPUTE_16F`: f16 accumulation, f16 scalars):
    /// the baseline of the f16-accumulate step.
    pub fn new_f16_compute(gpu: &Gpu) -> Result<Self> {
        Ok(CublasHgemm { f16_compute: true, ..Self::new(gpu)? })
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
        let f16t = blas_sys::cudaDataType::CUDA_R_16F;
        // SAFETY: column-major (n × k) B, (k × m) A, (n × m) C, leading dimensions n, k, n — the row-major
        // buffers, lengths checked; alpha/beta on the host, of the compute type's scalar type, alive
        // until the call returns (cuBLAS reads host scalars before returning).
        unsafe {
            cudarc::cublas::result::gemm_ex(*self.blas.handle(), op, op, s.n as i32, s.m as i32, s.k as i32,
                p_alpha, pb as *const _, f16t, s.n as i32, pa as *const _, f16t, s.k as i32,
                p_beta, pc as *mut _, f16t, s.n as i32, compute, blas_sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT)
        }.map_err(|source| Error::Cublas { what: format!("cublasGemmEx f16 ({} compute) {s}", if self.f16_compute { "16F" } else { "32F" }), source })
    }
}

/// `C = A · B` in f64 on the CPU from f16 inputs (all cores).
pub fn reference_f64(a: &[f16], b: &[f16], s: Shape) -> Vec<f64> {
    let af: Vec<f32> = a.iter().map(|v| v.to_f32()).collect();
    let bf: Vec<f32> = b.iter().map(|v| v.to_f32()).collect();
    crate::sgemm::reference_f64(&af, &bf, s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_registered_in_the_hgemm_family() {
        for st in Step::ALL {
            let k = crate::registry::find(st.kernel_name()).unwrap();
            assert_eq!((k.family, k.step), (crate::registry::Family::Hgemm, st.label()));
            // The TMA steps, and only they, live in the sm_90a module (skipped with a reason elsewhere).
            assert_eq!(st.is_tma(), k.target == crate::ptx::Target::Sm90a, "{}", st.label());
        }
    }
}
