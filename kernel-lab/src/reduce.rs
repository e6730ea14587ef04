//! `Σ x` over f32 in device memory with the reduction ladder's steps (seed 003): a plan per step and
//! size ([`ReducePlan`]: its scratch allocated once, enqueued many times) and [`sum`], which runs one.
//! `1 <= n`, at most what the step's index width allows ([`validate_n`]); inputs 16-byte aligned.
use cudarc::driver::{CudaSlice, DevicePtr};
use layout::reduce::{BLOCK, blocks_for};

use crate::{
    error::{Error, Result},
    launch,
    runtime::gpu::{Gpu, Kernel},
    steps::reduce::{Grid, Index, STEPS, Step},
};

/// Checks `n` against what `step` accepts: at least one element, at most its index width's limit
/// ([`Index::max_n`]: 2^31 for v0–v6's `u32` math, v7 takes any `n` that fits in memory).
pub fn validate_n(step: &Step, n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::InvalidInput(
            "n = 0: a reduction plan needs at least one element (reduce::sum returns 0 for an empty input without launching)".into()));
    }
    let max = step.index.max_n();
    if n as u64 > max {
        return Err(Error::InvalidInput(format!("n = {n} exceeds {}'s limit of {max} elements (u32 index math; v7 takes more)", step.kernel.name)));
    }
    Ok(())
}

/// Checks a size for the suite: at least 1, and taken by at least one step (the others say why in
/// their rows).
pub fn validate_size(n: usize) -> Result<()> {
    STEPS.iter().map(|s| validate_n(s, n)).find(|r| r.is_ok()).unwrap_or_else(|| validate_n(&STEPS[STEPS.len() - 1], n))
}

/// The grid of each launch `step` makes for `n` elements, when one wave of the GPU holds `wave` blocks
/// (v5/v6). The plans launch exactly these; the kernel traces use them to predict per-launch counts.
pub fn launch_grids(step: &Step, n: usize, wave: u64) -> Vec<u64> {
    match step.grid {
        Grid::Tree { per_block } => {
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
        Grid::GridStride => {
            let g = blocks_for(n as u64, 4 * BLOCK as u64).min(wave).max(1);
            if g > 1 { vec![g, 1] } else { vec![1] }
        }
        Grid::SinglePass => vec![blocks_for(n as u64, 4 * BLOCK as u64).min(wave).max(1)],
    }
}

/// The buffers and launch sequence of one step for one `n`; allocated once, enqueued many times.
pub struct ReducePlan<'g> {
    gpu: &'g Gpu,
    step: &'static Step,
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
    pub fn new(gpu: &'g Gpu, step: &'static Step, n: usize) -> Result<Self> {
        validate_n(step, n)?;
        let kernel = gpu.kernel(step.kernel.name)?;
        let (grid, scratch_len) = match step.grid {
            Grid::Tree { per_block } => {
                let g = blocks_for(n as u64, per_block as u64);
                (g, blocks_for(g, per_block as u64).max(1))
            }
            Grid::GridStride | Grid::SinglePass => {
                let wave = gpu.info.sms as u64 * kernel.max_blocks_per_sm()?.max(1) as u64;
                let g = blocks_for(n as u64, 4 * BLOCK as u64).min(wave).max(1);
                (g, 1)
            }
        };
        let grid = u32::try_from(grid).map_err(|_| Error::InvalidInput(format!("n = {n} needs {grid} blocks, above the grid limit")))?;
        let counter = if step.grid == Grid::SinglePass { Some(gpu.zeros::<u32>(1)?) } else { None };
        Ok(ReducePlan {
            gpu, step, n, grid, counter,
            scratch: [gpu.zeros(grid as usize)?, gpu.zeros(scratch_len as usize)?],
            out: gpu.zeros(1)?,
            kernel,
        })
    }

    /// The step this plan runs.
    pub fn step(&self) -> &'static Step { self.step }

    /// The loaded kernel (for its resources).
    pub fn kernel(&self) -> &Kernel { &self.kernel }

    /// Kernel launches one `enqueue` makes.
    pub fn launches(&self) -> usize {
        match self.step.grid {
            Grid::Tree { per_block } => {
                let (mut len, mut k) = (self.n as u64, 0);
                while len > 1 || k == 0 {
                    len = blocks_for(len, per_block as u64);
                    k += 1;
                }
                k
            }
            Grid::GridStride => if self.grid > 1 { 2 } else { 1 },
            Grid::SinglePass => 1,
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
        // v0–v6 take `n` as a u32 (n <= 2^31, validated in `new`); v7 as a u64.
        let (n, n64) = (self.n as u32, self.n as u64);
        let k = &self.kernel;
        let gpu = self.gpu;
        let [s0, s1] = &mut self.scratch;
        match self.step.grid {
            Grid::Tree { per_block } => {
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
            Grid::GridStride => {
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
            Grid::SinglePass => {
                check_aligned16(gpu, input, k.name())?;
                let counter = self.counter.as_mut().expect("SinglePass plans allocate a counter");
                // SAFETY: `reduce_v6/v7(g_in, g_partials, g_counter, g_out, n)`: aligned input of n f32,
                // `grid` partial slots in s0, a counter that is 0 (zeroed at allocation and reset by
                // each launch's last block; launches on one stream never overlap), one output; `n` in
                // the width the step's PTX takes (launch! checks the parameter sizes).
                unsafe {
                    match self.step.index {
                        Index::U32 => launch!(gpu, k, grid = self.grid, input, &mut *s0, counter, &mut self.out, &n),
                        Index::U64 => launch!(gpu, k, grid = self.grid, input, &mut *s0, counter, &mut self.out, &n64),
                    }
                }
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
pub fn sum(gpu: &Gpu, step: &'static Step, input: &CudaSlice<f32>) -> Result<f32> {
    if input.is_empty() {
        return Ok(0.0);
    }
    let mut plan = ReducePlan::new(gpu, step, input.len())?;
    plan.poison()?;
    plan.enqueue(input)?;
    plan.result()
}

