//! The SGEMM family (seed 004): `C (M×N) = A (M×K) · B (K×N)`, row-major f32, on CUDA cores; launch
//! geometry per step, the cuBLAS baseline (`cublasSgemm`, default math mode: no TF32) computing the same
//! row-major product, and references.
use cudarc::{
    cublas::{CudaBlas, sys as blas_sys},
    driver::{CudaSlice, DevicePtr, DevicePtrMut},
};
use layout::sgemm::{BM, BN, NAIVE_TILE, SMEM_TILE};

use crate::{
    error::{Error, Result},
    gpu::{Gpu, Kernel},
    launch,
};

/// A step of the ladder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Step { V0, V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11 }

impl Step {
    /// Every step in ladder order.
    pub const ALL: [Step; 12] = [Step::V0, Step::V1, Step::V2, Step::V3, Step::V4, Step::V5, Step::V6, Step::V7, Step::V8, Step::V9, Step::V10, Step::V11];

    /// PTX entry name.
    pub fn kernel_name(self) -> &'static str {
        ["sgemm_v0", "sgemm_v1", "sgemm_v2", "sgemm_v3", "sgemm_v4", "sgemm_v5", "sgemm_v6", "sgemm_v7", "sgemm_v8", "sgemm_v9", "sgemm_v10", "sgemm_v11"][self as usize]
    }

    /// `v0` …
    pub fn label(self) -> &'static str {
        crate::registry::find(self.kernel_name()).map(|k| k.step).unwrap_or("?")
    }

    /// Outputs per block `(rows, cols)`.
    pub fn block_tile(self) -> (u32, u32) {
        match self {
            Step::V0 => (NAIVE_TILE, NAIVE_TILE),
            Step::V1 => (SMEM_TILE, SMEM_TILE),
            _ => (BM, BN),
        }
    }
}

/// The shape `M × N × K`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Shape {
    /// Rows of A and C.
    pub m: usize,
    /// Columns of B and C.
    pub n: usize,
    /// Columns of A, rows of B.
    pub k: usize,
}

impl Shape {
    /// Validates the shape: every dimension at least 1, and each matrix small enough for the kernels'
    /// 32-bit indices of rows and columns (products are formed in 64 bits).
    pub fn new(m: usize, n: usize, k: usize) -> Result<Shape> {
        for (name, v) in [("M", m), ("N", n), ("K", k)] {
            if v == 0 {
                return Err(Error::InvalidInput(format!("SGEMM {name} = 0: every dimension must be at least 1")));
            }
            if v > 1 << 20 {
                return Err(Error::InvalidInput(format!("SGEMM {name} = {v} exceeds 2^20")));
            }
        }
        Ok(Shape { m, n, k })
    }
    /// `2·M·N·K`.
    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}x{}", self.m, self.n, self.k)
    }
}

impl Shape {
    /// Checks that buffers of `a_len`, `b_len`, `c_len` elements (of `elem`, e.g. "f32") hold A (M×K),
    /// B (K×N) and C (M×N); the error names the buffer and both lengths.
    pub fn check_buffers(&self, elem: &str, a_len: usize, b_len: usize, c_len: usize) -> Result<()> {
        for (what, len, want) in [("A", a_len, self.m * self.k), ("B", b_len, self.k * self.n), ("C", c_len, self.m * self.n)] {
            if len != want {
                return Err(Error::InvalidInput(format!("length mismatch: {what} holds {len} {elem}, the shape needs {want}")));
            }
        }
        Ok(())
    }
}

/// Enqueues `c = a · b` with `step`'s kernel (already loaded as `kernel`).
pub fn launch(gpu: &Gpu, kernel: &Kernel, step: Step, s: Shape, a: &CudaSlice<f32>, b: &CudaSlice<f32>, c: &mut CudaSlice<f32>) -> Result<()> {
    s.check_buffers("f32", a.len(), b.len(), c.len())?;
    if step == Step::V10 && (s.k % 4 != 0 || s.n % 4 != 0) {
        return Err(Error::InvalidInput(format!(
            "sgemm_v10 copies rows with 16-byte cp.async: K and N must be multiples of 4 (got {s}); v9 handles any shape")));
    }
    let (bm, bn) = step.block_tile();
    let grid = ((s.n as u32).div_ceil(bn), (s.m as u32).div_ceil(bm));
    if grid.1 > 65_535 {
        return Err(Error::InvalidInput(format!("M = {} needs {} block rows, above the grid's y limit of 65535", s.m, grid.1)));
    }
    let (m, n, k) = (s.m as u32, s.n as u32, s.k as u32);
    // SAFETY: every sgemm kernel takes (a: M·K f32, b: K·N f32, c: M·N f32, m, n, k) — lengths checked
    // above; buffers are fresh allocations (256-byte aligned, as v5/v6's vector loads need); the grid
    // covers C with the step's block tile, and block size and shared memory come from the registry.
    unsafe { launch!(gpu, kernel, grid = grid, a, b, c, &m, &n, &k) }
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
    let mut c = vec![0.0f64; s.m * s.n];
    let threads = std::thread::available_parallelism().map(|t| t.get()).unwrap_or(1).min(s.m).max(1);
    let rows_per = s.m.div_ceil(threads);
    std::thread::scope(|scope| {
        for (t, chunk) in c.chunks_mut(rows_per * s.n).enumerate() {
            scope.spawn(move || {
                let mut row = vec![0.0f64; s.n];
                for (r, out) in chunk.chunks_mut(s.n).enumerate() {
                    let i = t * rows_per + r;
                    row.iter_mut().for_each(|x| *x = 0.0);
                    for kk in 0..s.k {
                        let av = a[i * s.k + kk] as f64;
                        let brow = &b[kk * s.n..(kk + 1) * s.n];
                        for (x, &bv) in row.iter_mut().zip(brow) {
                            *x += av * bv as f64;
                        }
                    }
                    out.copy_from_slice(&row);
                }
            });
        }
    });
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_lengths_are_checked_per_matrix() {
        let s = Shape::new(3, 5, 7).unwrap();
        assert!(s.check_buffers("f32", 21, 35, 15).is_ok());
        let e = s.check_buffers("f16", 21, 34, 15).unwrap_err().to_string();
        assert!(e.contains("B holds 34 f16, the shape needs 35"), "{e}");
        assert!(s.check_buffers("f32", 21, 35, 16).unwrap_err().to_string().contains("C holds 16"));
    }

    #[test]
    fn shapes_are_validated() {
        assert!(Shape::new(0, 1, 1).unwrap_err().to_string().contains("M = 0"));
        assert!(Shape::new(1, 1, (1 << 20) + 1).unwrap_err().to_string().contains("K"));
        assert_eq!(Shape::new(2, 3, 4).unwrap().flops(), 48.0);
    }

    #[test]
    fn reference_matches_a_hand_computed_product() {
        let s = Shape::new(2, 3, 2).unwrap();
        let (a, b) = ([1.0, 2.0, 3.0, 4.0], [1.0, 0.0, 2.0, 0.0, 1.0, 3.0]);
        assert_eq!(reference_f64(&a, &b, s), vec![1.0, 2.0, 8.0, 3.0, 4.0, 18.0]);
    }

    #[test]
    fn every_step_is_registered_in_the_sgemm_family() {
        for st in Step::ALL {
            let k = crate::registry::find(st.kernel_name()).unwrap();
            assert_eq!(k.family, crate::registry::Family::Sgemm);
            assert_eq!(k.step, st.label());
        }
    }
}
