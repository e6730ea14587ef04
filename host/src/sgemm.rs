//! `C = A · B` in f32, the library's SGEMM entry point: row-major f32 in and out, FFMA on CUDA cores
//! (no TF32, as `cublasSgemm` in its default math mode), any `M × N × K` (each dimension 1 … 2^20).
//!
//! ```ignore
//! let s = Shape::new(16, 4096, 4096)?;
//! let used = kernel_lab::sgemm::gemm_f32(&gpu, s, &d_a, &d_b, &mut d_c)?;   // the step it chose
//! ```
//!
//! **The choice** ([`default_step`], CPU-tested) is a function of the shape and the SM count, from
//! one held-timing run of v11, v12 and v13 at 17 shapes on an H100 (`results/2026-11-23-h100-session10/
//! call1-v13`):
//! * `v13` (16×32 strips, B streamed once, K split inside the block) for `M ≤` [`SKINNY_MAX_M`]: 1 / 4 /
//!   16 × 4096² at 100% / 246% / 212% of cuBLAS, 1–16 × 4096×14336 100–111%, 1–16 × 14336×4096 91–92%,
//!   32 × 4096² 73% (v12 40%); and where v12's grid would leave more than three quarters of the SMs
//!   idle ([`v12_starves`]: 512³, 32 blocks, v13 70% against v12's 44%).
//! * `v12` (128×128 tiles, K split across blocks into a zeroed C) where the tiles are fewer than the
//!   SMs (`layout::sgemm::split_k` gives more than one split): 1024³ 87% (v11 57%), 1000³ 73% (48%),
//!   127×8191×1024 73% (47%), 128 / 256 × 4096² 75% / 78% (v13 45%).
//! * `v11` otherwise (the tiles fill the GPU: 2048³ and 4096³ 91%; v12 at one block per SM 70–72%).
//!
//! Every step takes every shape (edges predicated), so nothing is padded; a forced step that cannot take
//! the shape (v10: K and N multiples of 4) is refused naming the rule.
use cudarc::driver::CudaSlice;

use crate::{
    error::{Error, Result},
    families::{gemm::Shape, sgemm},
    runtime::gpu::{Gpu, Kernel},
    steps::sgemm::{self as steps, Step},
};

/// The largest M [`default_step`] gives to `v13` by M alone (at 64, v13 and v12 both ran at 51% of
/// cuBLAS; at 32 v13 had 73%, v12 40%).
pub const SKINNY_MAX_M: usize = 32;

/// Whether v14's grid (64×128 tiles × splits) would fill under half of the `sms` SMs.
pub fn v14_starves(s: Shape, sms: u32) -> bool {
    let (m, n, k) = (s.m as u32, s.n as u32, s.k as u32);
    let tiles = m.div_ceil(layout::sgemm::V14_ROWS) as u64 * n.div_ceil(layout::sgemm::BN) as u64;
    let (splits, _) = steps::V14.split_k(m, n, k, sms, 1);
    2 * tiles * (splits as u64) < sms as u64
}

/// The default SGEMM step for `s` on a GPU with `sms` SMs (the module doc gives the measurements).
pub fn default_step(s: Shape, sms: u32) -> &'static Step {
    let (m, n, k) = (s.m as u32, s.n as u32, s.k as u32);
    if s.m <= SKINNY_MAX_M || v14_starves(s, sms) {
        &steps::V13
    } else if steps::V12.split_k(m, n, k, sms, 1).0 > 1 {
        &steps::V14
    } else {
        &steps::V11
    }
}

/// The step for `s`: `step` if given (refused naming the rule when it cannot take `s`), else
/// [`default_step`]. Pure: the CPU tests cover it.
pub fn choose(s: Shape, sms: u32, step: Option<&'static Step>) -> Result<&'static Step> {
    let st = step.unwrap_or(default_step(s, sms));
    match st.rejects(s.m, s.n, s.k) {
        None => Ok(st),
        Some(why) => Err(Error::InvalidInput(format!("--config {} cannot run {s}: {why}", st.kernel.step))),
    }
}

/// An SGEMM step by its `--config` label (`v11`, `v12`, `v13`, …: every step of the ladder).
pub fn step_by_label(label: &str) -> Result<&'static Step> {
    steps::STEPS.iter().find(|s| s.kernel.step == label).ok_or_else(|| Error::InvalidInput(format!(
        "--config `{label}`: not an sgemm step (choose one of {})", steps::STEPS.iter().map(|s| s.kernel.step).collect::<Vec<_>>().join(", "))))
}

/// One shape's SGEMM, ready to run many times: the chosen step and its loaded kernel.
pub struct SgemmPlan<'g> {
    gpu: &'g Gpu,
    shape: Shape,
    step: &'static Step,
    kernel: Kernel,
}

impl<'g> SgemmPlan<'g> {
    /// Chooses (or takes `step`, refused with the reason if this GPU or shape cannot run it) the step
    /// for `s` and loads its kernel.
    pub fn new(gpu: &'g Gpu, s: Shape, step: Option<&'static Step>) -> Result<Self> {
        if let Some(st) = step
            && let Some(why) = gpu.cannot_run(&st.kernel)
        {
            return Err(Error::InvalidInput(format!("--config {}: {why}", st.kernel.step)));
        }
        let step = choose(s, gpu.info.sms, step)?;
        s.grid(step, gpu.info.sms)?;
        let kernel = gpu.kernel(step.kernel.name)?;
        Ok(SgemmPlan { gpu, shape: s, step, kernel })
    }

    /// The step this plan runs.
    pub fn step(&self) -> &'static Step {
        self.step
    }

    /// Enqueues `c = a · b` (row-major f32; lengths checked against the plan's shape).
    pub fn run(&mut self, a: &CudaSlice<f32>, b: &CudaSlice<f32>, c: &mut CudaSlice<f32>) -> Result<()> {
        sgemm::launch(self.gpu, &self.kernel, self.step, self.shape, a, b, c)
    }
}

/// `c = a · b` for one shape: plans (default step), runs, and returns the step used. For repeated calls
/// on one shape keep an [`SgemmPlan`].
pub fn gemm_f32(gpu: &Gpu, s: Shape, a: &CudaSlice<f32>, b: &CudaSlice<f32>, c: &mut CudaSlice<f32>) -> Result<&'static Step> {
    let mut plan = SgemmPlan::new(gpu, s, None)?;
    plan.run(a, b, c)?;
    Ok(plan.step())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(m: usize, n: usize, k: usize) -> &'static str {
        default_step(Shape::new(m, n, k).unwrap(), 132).kernel.step
    }

    #[test]
    fn the_choice_follows_the_measured_ranges() {
        for (m, n, k, want) in [
            (1, 4096, 4096, "v13"), (16, 4096, 4096, "v13"), (32, 4096, 4096, "v13"), (16, 14336, 4096, "v13"), (1, 4096, 14336, "v13"),
            (512, 512, 512, "v13"), (768, 768, 768, "v14"), (48, 4096, 4096, "v14"), (64, 4096, 4096, "v14"), (128, 4096, 4096, "v14"), (256, 4096, 4096, "v14"),
            (127, 8191, 1024, "v14"), (1000, 1000, 1000, "v14"), (1024, 1024, 1024, "v14"), (300, 300, 200, "v13"),
            (2048, 2048, 2048, "v11"), (4096, 4096, 4096, "v11"), (4096, 4096, 300, "v11"),
        ] {
            assert_eq!(label(m, n, k), want, "{m}x{n}x{k}");
        }
        assert!(v14_starves(Shape::new(512, 512, 512).unwrap(), 132), "32 tiles x 2 splits = 64 blocks");
        assert!(!v14_starves(Shape::new(768, 768, 768).unwrap(), 132), "72 tiles");
        assert!(v14_starves(Shape::new(300, 300, 200).unwrap(), 132), "15 tiles, K too short to split");
    }

    #[test]
    fn every_shape_gets_a_step_that_takes_it_and_forced_ones_are_checked() {
        let mut x = 99u64;
        for _ in 0..3000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let s = Shape::new((x >> 10) as usize % 5000 + 1, (x >> 24) as usize % 5000 + 1, (x >> 40) as usize % 5000 + 1).unwrap();
            let st = choose(s, 132, None).unwrap();
            assert!(st.rejects(s.m, s.n, s.k).is_none(), "{s}");
            assert!(s.grid(st, 132).is_ok(), "{s}");
        }
        let e = choose(Shape::new(8, 8, 7).unwrap(), 132, Some(&steps::V10)).unwrap_err().to_string();
        assert!(e.contains("--config v10") && e.contains("multiples of 4"), "{e}");
        assert_eq!(step_by_label("v13").unwrap().kernel.name, "sgemm_v13");
        let e = step_by_label("h6").unwrap_err().to_string();
        assert!(e.contains("not an sgemm step") && e.contains("v13"), "{e}");
    }
}
