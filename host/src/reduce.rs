//! The reduction family (seed 003): launch plans for each step, the cuBLAS and copy baselines, and the
//! suite's measurements.
//!
//! Problem: `Σ x[i]` over `n` f32 in device memory, `1 <= n <= MAX_N`. Bytes that must move: `4n` (each
//! input read once); the floor is `4n / copy bandwidth`, where copy bandwidth (a device-to-device copy,
//! counting bytes read + written) is measured in the same run.
use cudarc::{
    cublas::{CudaBlas, sys as blas_sys},
    driver::{CudaSlice, DevicePtr},
};
use layout::reduce::{BLOCK, ELEMS_PER_BLOCK_V0, ELEMS_PER_BLOCK_V3, blocks_for};

use crate::{
    error::{DriverContext, Error, Result},
    gpu::{Gpu, Kernel},
    launch,
};

/// Largest `n` the kernels accept: their `u32` index math (`i + BLOCK`, `4·j`) must not overflow.
pub const MAX_N: usize = 1 << 31;

/// A step of the ladder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Step { V0, V1, V2, V3, V4, V5, V6 }

/// How a step covers the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// One block per `per_block` elements; relaunched on the partial sums until one is left.
    Tree { per_block: u32 },
    /// One wave of blocks over a grid-stride loop, then one final single-block pass.
    GridStride,
    /// One wave of blocks; the last block to finish writes the total.
    SinglePass,
}

impl Step {
    /// Every step, in ladder order.
    pub const ALL: [Step; 7] = [Step::V0, Step::V1, Step::V2, Step::V3, Step::V4, Step::V5, Step::V6];

    /// The kernel's PTX entry name (its registry key).
    pub fn kernel_name(self) -> &'static str {
        match self {
            Step::V0 => "reduce_v0",
            Step::V1 => "reduce_v1",
            Step::V2 => "reduce_v2",
            Step::V3 => "reduce_v3",
            Step::V4 => "reduce_v4",
            Step::V5 => "reduce_v5",
            Step::V6 => "reduce_v6",
        }
    }

    /// The step's label (`v0` …).
    pub fn label(self) -> &'static str {
        crate::registry::find(self.kernel_name()).map(|k| k.step).unwrap_or("?")
    }

    fn shape(self) -> Shape {
        match self {
            Step::V0 | Step::V1 | Step::V2 => Shape::Tree { per_block: ELEMS_PER_BLOCK_V0 },
            Step::V3 | Step::V4 => Shape::Tree { per_block: ELEMS_PER_BLOCK_V3 },
            Step::V5 => Shape::GridStride,
            Step::V6 => Shape::SinglePass,
        }
    }
}

/// Checks `n` against what the kernels accept.
pub fn validate_n(n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::InvalidInput(
            "n = 0: a reduction plan needs at least one element (reduce::sum returns 0 for an empty input without launching)".into()));
    }
    if n > MAX_N {
        return Err(Error::InvalidInput(format!("n = {n} exceeds the reduce kernels' limit of {MAX_N} elements (u32 index math)")));
    }
    Ok(())
}

/// The grid of each launch `step` makes for `n` elements, when one wave of the GPU holds `wave` blocks
/// (v5/v6). The plans launch exactly these; the kernel traces use them to predict per-launch counts.
pub fn launch_grids(step: Step, n: usize, wave: u64) -> Vec<u64> {
    match step.shape() {
        Shape::Tree { per_block } => {
            let mut grids = vec![];
            let mut len = n as u64;
            loop {
                let g = blocks_for(len, per_block as u64);
                grids.push(g);
                if g <= 1 {
                    return grids;
                }
                len = g;
            }
        }
        Shape::GridStride => {
            let g = blocks_for(n as u64, 4 * BLOCK as u64).min(wave).max(1);
            if g > 1 { vec![g, 1] } else { vec![1] }
        }
        Shape::SinglePass => vec![blocks_for(n as u64, 4 * BLOCK as u64).min(wave).max(1)],
    }
}

/// The buffers and launch sequence of one step for one `n`; allocated once, enqueued many times.
pub struct ReducePlan<'g> {
    gpu: &'g Gpu,
    step: Step,
    kernel: Kernel,
    n: usize,
    /// Blocks of the first (or only) launch.
    grid: u32,
    scratch: [CudaSlice<f32>; 2],
    counter: Option<CudaSlice<u32>>,
    out: CudaSlice<f32>,
}

impl<'g> ReducePlan<'g> {
    /// Loads the step's kernel and allocates its scratch for inputs of exactly `n` elements.
    pub fn new(gpu: &'g Gpu, step: Step, n: usize) -> Result<Self> {
        validate_n(n)?;
        let kernel = gpu.kernel(step.kernel_name())?;
        let (grid, scratch_len) = match step.shape() {
            Shape::Tree { per_block } => {
                let g = blocks_for(n as u64, per_block as u64);
                (g, blocks_for(g, per_block as u64).max(1))
            }
            Shape::GridStride | Shape::SinglePass => {
                let wave = gpu.info.sms as u64 * kernel.max_blocks_per_sm()?.max(1) as u64;
                let g = blocks_for(n as u64, 4 * BLOCK as u64).min(wave).max(1);
                (g, 1)
            }
        };
        let grid = u32::try_from(grid).map_err(|_| Error::InvalidInput(format!("n = {n} needs {grid} blocks, above the grid limit")))?;
        let counter = if step.shape() == Shape::SinglePass { Some(gpu.zeros::<u32>(1)?) } else { None };
        Ok(ReducePlan {
            gpu, step, n, grid, counter,
            scratch: [gpu.zeros(grid as usize)?, gpu.zeros(scratch_len as usize)?],
            out: gpu.zeros(1)?,
            kernel,
        })
    }

    /// The step this plan runs.
    pub fn step(&self) -> Step { self.step }

    /// The loaded kernel (for its resources).
    pub fn kernel(&self) -> &Kernel { &self.kernel }

    /// Kernel launches one `enqueue` makes.
    pub fn launches(&self) -> usize {
        match self.step.shape() {
            Shape::Tree { per_block } => {
                let (mut len, mut k) = (self.n as u64, 0);
                while len > 1 || k == 0 {
                    len = blocks_for(len, per_block as u64);
                    k += 1;
                }
                k
            }
            Shape::GridStride => if self.grid > 1 { 2 } else { 1 },
            Shape::SinglePass => 1,
        }
    }

    /// Fills the result and scratch buffers with NaN, so a result that was never written is caught.
    pub fn poison(&mut self) -> Result<()> {
        self.gpu.poison(&mut self.out)?;
        let [a, b] = &mut self.scratch;
        self.gpu.poison(a)?;
        self.gpu.poison(b)
    }

    /// Enqueues the whole reduction of `input` (exactly `n` elements) on the stream.
    pub fn enqueue(&mut self, input: &CudaSlice<f32>) -> Result<()> {
        if input.len() != self.n {
            return Err(Error::InvalidInput(format!(
                "length mismatch: the plan for `{}` was made for n = {}, the input buffer holds {}",
                self.kernel.name(), self.n, input.len())));
        }
        let n = self.n as u32;
        let k = &self.kernel;
        let gpu = self.gpu;
        let [s0, s1] = &mut self.scratch;
        match self.step.shape() {
            Shape::Tree { per_block } => {
                // Pass 0: input -> s0 (or out); pass i: s(i-1) -> s(i) alternating; the last writes `out`.
                let mut len = n;
                let mut pass = 0;
                loop {
                    let g = blocks_for(len as u64, per_block as u64) as u32;
                    // SAFETY (all three launches): `reduce_v0..v4(g_in, g_out, n)` with `len` readable
                    // inputs, `g` = ceil(len / per_block) blocks of BLOCK threads and one writable output
                    // per block (`out` has 1, s0 has `grid` >= g, s1 has ceil(grid / per_block) >= g for
                    // every pass after the first), the registered BLOCK·4 bytes of shared memory.
                    unsafe {
                        match (pass, g == 1, pass % 2) {
                            (0, true, _) => launch!(gpu, k, grid = g, input, &mut self.out, &len)?,
                            (0, false, _) => launch!(gpu, k, grid = g, input, &mut *s0, &len)?,
                            (_, true, 1) => launch!(gpu, k, grid = g, &*s0, &mut self.out, &len)?,
                            (_, true, _) => launch!(gpu, k, grid = g, &*s1, &mut self.out, &len)?,
                            (_, false, 1) => launch!(gpu, k, grid = g, &*s0, &mut *s1, &len)?,
                            (_, false, _) => launch!(gpu, k, grid = g, &*s1, &mut *s0, &len)?,
                        }
                    }
                    if g == 1 {
                        return Ok(());
                    }
                    len = g;
                    pass += 1;
                }
            }
            Shape::GridStride => {
                check_aligned16(gpu, input, k.name())?;
                let g = self.grid;
                // SAFETY: `reduce_v5(g_in, g_out, n)`: `input` holds n f32, 16-byte aligned (checked);
                // `s0` has `grid` outputs, `out` 1; then one block over the `g` partials (aligned: a
                // fresh allocation). n <= MAX_N (validated in `new`).
                unsafe {
                    if g == 1 {
                        launch!(gpu, k, grid = 1, input, &mut self.out, &n)?;
                    } else {
                        launch!(gpu, k, grid = g, input, &mut *s0, &n)?;
                        launch!(gpu, k, grid = 1, &*s0, &mut self.out, &g)?;
                    }
                }
                Ok(())
            }
            Shape::SinglePass => {
                check_aligned16(gpu, input, k.name())?;
                let counter = self.counter.as_mut().expect("SinglePass plans allocate a counter");
                // SAFETY: `reduce_v6(g_in, g_partials, g_counter, g_out, n)`: aligned input of n f32,
                // `grid` partial slots in s0, a counter that is 0 (zeroed at allocation and reset by
                // each launch's last block; launches on one stream never overlap), one output.
                unsafe { launch!(gpu, k, grid = self.grid, input, &mut *s0, counter, &mut self.out, &n) }
            }
        }
    }

    /// Waits for the stream and returns the sum the last `enqueue` produced.
    pub fn result(&mut self) -> Result<f32> {
        self.gpu.sync_after(self.kernel.name())?;
        let v = self.gpu.download(&self.out)?;
        Ok(v[0])
    }
}

fn check_aligned16(gpu: &Gpu, input: &CudaSlice<f32>, kernel: &str) -> Result<()> {
    let (ptr, _sync) = input.device_ptr(&gpu.stream);
    if ptr % 16 != 0 {
        return Err(Error::InvalidInput(format!("`{kernel}` reads 128-bit vectors: the input must be 16-byte aligned (address {ptr:#x})")));
    }
    Ok(())
}

/// `Σ input` with `step`: plans, runs and returns it (0 for an empty input, with no launch).
pub fn sum(gpu: &Gpu, step: Step, input: &CudaSlice<f32>) -> Result<f32> {
    if input.is_empty() {
        return Ok(0.0);
    }
    let mut plan = ReducePlan::new(gpu, step, input.len())?;
    plan.poison()?;
    plan.enqueue(input)?;
    plan.result()
}

/// cuBLAS baseline: `Σ x = x · 1` with `cublasSdot` (result in device memory, no host sync).
/// It reads `x` and a ones vector, `8n` bytes, so it is not a bound for a reduction that reads `4n`.
pub struct CublasSum {
    blas: CudaBlas,
    ones: CudaSlice<f32>,
    out: CudaSlice<f32>,
}

impl CublasSum {
    /// A cuBLAS handle on the library's stream and a ones vector of `n`.
    pub fn new(gpu: &Gpu, n: usize) -> Result<Self> {
        validate_n(n)?;
        if n > i32::MAX as usize {
            return Err(Error::InvalidInput(format!("n = {n} exceeds cuBLAS's int length")));
        }
        // SAFETY: only tries to dlopen libcublas; no call is made.
        if !unsafe { cudarc::cublas::sys::is_culib_present() } {
            return Err(Error::NoGpu("libcublas was not found (the cuBLAS baseline needs it)".into()));
        }
        let blas = CudaBlas::new(gpu.stream.clone()).map_err(|source| Error::Cublas { what: "cublasCreate".into(), source })?;
        blas.set_pointer_mode(blas_sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE)
            .map_err(|source| Error::Cublas { what: "cublasSetPointerMode".into(), source })?;
        let ones = gpu.upload(&vec![1.0f32; n])?;
        Ok(CublasSum { blas, ones, out: gpu.zeros(1)? })
    }

    /// Enqueues `out = x · 1`.
    pub fn enqueue(&mut self, gpu: &Gpu, x: &CudaSlice<f32>) -> Result<()> {
        if x.len() != self.ones.len() {
            return Err(Error::InvalidInput(format!("length mismatch: cuBLAS baseline made for n = {}, input holds {}", self.ones.len(), x.len())));
        }
        let n = x.len() as i32;
        let (px, _a) = x.device_ptr(&gpu.stream);
        let (po, _b) = self.ones.device_ptr(&gpu.stream);
        let (pr, _c) = cudarc::driver::DevicePtrMut::device_ptr_mut(&mut self.out, &gpu.stream);
        // SAFETY: x and ones hold n f32 each; the result pointer is one device f32 (pointer mode
        // device was set in `new`); the handle's stream is the library's stream.
        unsafe {
            blas_sys::cublasSdot_v2(*self.blas.handle(), n, px as *const f32, 1, po as *const f32, 1, pr as *mut f32).result()
        }.map_err(|source| Error::Cublas { what: "cublasSdot".into(), source })
    }

    /// Waits and returns the dot product.
    pub fn result(&mut self, gpu: &Gpu) -> Result<f32> {
        gpu.stream.synchronize().during(|| "synchronizing after cublasSdot".into())?;
        Ok(gpu.download(&self.out)?[0])
    }

    /// Fills the result with NaN.
    pub fn poison(&mut self, gpu: &Gpu) -> Result<()> {
        gpu.poison(&mut self.out)
    }
}

/// Device-to-device copy of `src` into `dst` (the bandwidth baseline: `8n` bytes moved).
pub fn copy(gpu: &Gpu, src: &CudaSlice<f32>, dst: &mut CudaSlice<f32>) -> Result<()> {
    gpu.stream.memcpy_dtod(src, dst).during(|| format!("device-to-device copy of {} f32", src.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_outside_the_kernels_range_are_rejected() {
        assert!(validate_n(0).unwrap_err().to_string().contains("n = 0"));
        assert!(validate_n(MAX_N + 1).unwrap_err().to_string().contains("exceeds"));
        assert!(validate_n(1).is_ok() && validate_n(MAX_N).is_ok());
    }

    #[test]
    fn every_step_has_a_registered_kernel() {
        for s in Step::ALL {
            let k = crate::registry::find(s.kernel_name()).expect("registered");
            assert_eq!(k.family, crate::registry::Family::Reduce);
            assert_eq!(s.label(), k.step);
        }
    }
}
