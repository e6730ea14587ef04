//! `C = A · B` in f32, the library's SGEMM entry point: row-major f32 in and out, FFMA on CUDA cores
//! (no TF32, as `cublasSgemm` in its default math mode), any `M × N × K` (each dimension 1 … 2^20).
//!
//! ```ignore
//! let s = Shape::new(16, 4096, 4096)?;
//! let mut plan = kernel_lab::sgemm::SgemmPlan::new(&gpu, s, None)?;   // or gemm::GemmPlan::<f32>
//! plan.run(&d_a, &d_b, &mut d_c)?;
//! ```
//!
//! **On Hopper** (a GPU that runs `sm_90a` code) the choice is a cost model since session 87
//! ([`cost`]): every family's schedule on the shape (CTAs, the K each walks, blocks an SM) priced by constants
//! measured per family on a corpus sample, the cheapest taken. Over 54 shapes whose pick changed and no fit saw
//! (`results/2026-12-02-h200-session87`, call 4, H200, 3 processes, the cascade's build alternating): a fresh
//! corpus sample 1.072 → 1.166× cuBLAS, session 83's 1.053 → 1.221×, 14 random shapes off the corpus
//! 0.786 → 0.817×. What follows is the cascade it replaced there, which still chooses on other GPUs.
//!
//! **The choice** ([`default_step`], CPU-tested) is a function of the shape and the SM count, from
//! held-timing runs of v11–v15 on an H100 (`results/2026-11-23-h100-session10/`, calls 1, 3, 4;
//! `results/2026-11-25-h100-session16/call2-sgemm-v15`):
//! * `v13` (16×32 strips, B streamed once, K split inside the block) for `M ≤` [`SKINNY_MAX_M`]: 1 / 4 /
//!   16 × 4096² at 101% / 244% / 213% of cuBLAS (v15 at 16: 167%), 1–16 × 4096×14336 100–112%, 1–16 ×
//!   14336×4096 91–92% (v15 at 16: 111%, but at M = 1 it would compute 31 rows for nothing). On Hopper
//!   sessions 25–86 gave 8 < M ≤ 16 with more than twice 4096² weights v23 instead (1.03–1.28× v13 at six
//!   such shapes, `results/2026-11-26-h100-session25/call3`); the cost model decides there now.
//! * `v15` (32×128 tiles, 64 threads, six blocks per SM, K split into a zeroed C) for `M ≤`
//!   [`QUARTER_TILE_MAX_M`] above that — 32×4096² 84.6% (v13 72%, v14 64%) — and where v14's grid would
//!   fill under half the SMs ([`v14_starves`]: 512³, 64 blocks: v15 75%, v13 70%, v14 66%).
//! * `v19` (v14's 64×128 tiles, 128 threads, three blocks per SM, K split into a zeroed C while the
//!   tiles are few or K is deep, every tile on the interior loop from a clamped base) wherever the
//!   128×128 tiles are fewer than [`V19_MAX_TILES_PER_SM`] × the SMs, otherwise left to `v11`
//!   (`results/2026-11-25-h100-session19/`, calls 4 and 6): 1000³ 84% (v12 74%, v16 74–75%), 1024³
//!   94% (v12 88%), 1536³ 89% (v11 68%, v12 60%), 127×8191×1024 84% (v16 72%), 768³ 88% (v12 88%),
//!   48–512 × 4096² as v16 (1.00×, which was v14 there: 83–93%); but 2000³ 84.5% and 2048³ 81% against
//!   v11's 88% and 91% (256 tiles of 128×128: v11's two blocks per SM fill the GPU).
//! * Where the 128×128 tiles fill the GPU: `v19` if its waves are fuller ([`v19_fills_waves_better`]:
//!   3000³ 96% against v11's 73%, `call11`) and N % 4 == 0 (off 4 its clamped loop loads B element by
//!   element: 4095³ 0.80× v20); otherwise `v11` where every 128×128 tile is inside M and N (2048³ and
//!   4096³ 91%), `v20` where some is not (v11 with v19's one loop per launch; `call10`: 1.079× v11 at
//!   2000³, 1.050× at 1500×3000×2048, 1.03× at 2050²×2048, 0.999× at 4000³, and 0.993× at the aligned
//!   2048³, where the clamp only adds instructions).
//!
//! * **On Hopper** (a GPU that runs `sm_90a` code) v19 and v15 run in their [`hopper_form`]: C zeroed
//!   by a grid the GEMM overlaps (programmatic dependent launch) instead of a memset, and with N % 4 == 0
//!   the split-K adds as `red.global.add.v4.f32` — `v24` (v14's split rule again) and `v23`; with N off 4
//!   `v25` (v24 with each add as wide as its element's alignment allows: 1.02–1.27× v21 at five shapes,
//!   0.98× at 127×8191×1024) and `v26` (v22 with v25's reductions). `results/2026-11-25-h100-session20/`: 512³ 76.8 → 104.7% of cuBLAS,
//!   32×4096² 84.8 → 112.1%, 64×4096² 83.9 → 99.8%, 1000³ 84.0 → 94.7%, 1024³ 93.7 → 104.3%. Since
//!   session 24 `v29` takes v25's place (v25 with N off 4 on the aligned loop, B's elements unclamped:
//!   1.005–1.036× v25 at six shapes with N off 4, `results/2026-11-26-h100-session24/call15`), and since
//!   session 25 `v30` takes v29's (B's scalar loads across the warp, each a 128-byte run: 1.012–1.081×
//!   v29 at five shapes with N off 4, 0.998× at 1000×999×1000; `results/2026-11-26-h100-session25/call1`),
//!   then `v31` (B copied by `cp.async` word by word: 1.047× v30 at 127×8191×1024, 1.055× at
//!   130×4097×1024, 0.993–1.014× elsewhere; `call5`) where K % 16 == 0, and `v32` (v31's loop also for
//!   K off 16, its last partial stage predicated: 1.034–1.085× v31 at three such shapes, 0.994× at
//!   64×4095×4100; `call8`, `call9`) where K is off 16.
//!
//! * Since session 61 `v34` (v33 in row groups of 4: two blocks per SM) for M ≤ 4 and `v33` above
//!   take v13's place (H200, `results/2026-11-30-h200-session61`: 4×50257×768 0.51 → 0.95× cuBLAS,
//!   1×32001×4096 0.70 → 0.98×, 1×5120×13824 0.76 → 1.04×, 1×6144×4096 0.89 → 1.08×, 8×50257×768
//!   0.86 → 1.14×; one-wave decode shapes level). v33: v13 with N off 4 on its interior loop (a lane's columns
//!   `l + 8j`, four scalar loads a row) and K split by waves (`layout::sgemm::split_k_waves`: v13 split
//!   only when its strips were at most half the SMs; 1×5120×13824, 160 strips, ran two waves, the
//!   second 28 blocks, at 0.77× cuBLAS; 4×50257×768 took the edge loop everywhere, 0.52×; session 58).
//!
//! * Since session 61 v24 (and v25, v29–v32, which share its grid) splits K by rounds
//!   (`layout::sgemm::split_k_rounds`): v14's `(3, 256)` unless the last round of three resident blocks
//!   per SM, modelled, predicts a split ≥ 5% faster — 64×57344×8192 0.79 → 1.04× cuBLAS, 128×10240×8192
//!   0.79 → 0.93×, ten held-out shapes 1.02–1.30×.
//!
//! `v12` (128×128 tiles, K split) and `v16` are no longer chosen: v19 is as fast or faster wherever they
//! were (`--config v12` still runs them).
//!
//! Every step takes every shape (edges predicated), so nothing is padded; a forced step that cannot take
//! the shape (v10: K and N multiples of 4) is refused naming the rule.
use cudarc::driver::CudaSlice;

use crate::{
    error::{Error, Result},
    gemm::{Shape, launch::Operand},
    runtime::gpu::{Gpu, Kernel},
    steps::sgemm::{self as steps, Step},
};

pub mod calibrate;
pub mod cost;
pub mod launch;

/// The largest M [`default_step`] gives to `v13` by M alone (at 16 × 4096² v13 214% of cuBLAS, v15
/// 167%; at 32 v15 84.6%, v13 72%).
pub const SKINNY_MAX_M: usize = 16;

/// The largest M [`default_step`] gives to `v34` (row groups of 4: past them each group reads B again).
pub const SMALL_GROUP_MAX_M: usize = layout::sgemm::SKINNY_SMALL_GROUP as usize;

/// The largest M [`default_step`] gives to `v15` (32×128 tiles) by M alone (at 32 × 4096² v15 84.6%,
/// v13 72%, v14 64%; at 48 v14 80%, v15 72.5%).
pub const QUARTER_TILE_MAX_M: usize = 32;

/// [`default_step`] gives a shape past v13 and v15 to `v19` while its 128×128 tiles are fewer than
/// `V19_MAX_TILES_PER_SM · SMs` (v11's two blocks per SM fill the GPU from about one tile per block:
/// 256 tiles at 2000³ and 2048³, where v11 ran 88 / 91% and v19 84.5 / 81%; 144 at 1536³, where v19 ran
/// 89% and v11 68%). The boundary between 144 and 256 tiles is not measured; 1.5 per SM splits it.
pub const V19_MAX_TILES_PER_SM: (u64, u64) = (3, 2);

/// Where the 128×128 tiles fill the GPU: whether v19's 64×128 tiles at three blocks per SM leave less of
/// their waves idle than v11's (and v20's) 128×128 tiles at two. A launch takes as long as its waves, so
/// the fuller one wins where the loops are alike (`call11`: 3000³ — 576 tiles of 128², 2.2 waves of v11
/// against 2.85 of v19 — v19 1.32× v11; 1536³ 1.31×; 2000³ — 0.97 of a wave against 1.29 — v20 1.12×
/// v19; 4000³ — 3.9 waves against 5.1 — alike). A wave's useful share counts the rows of C its tiles
/// cover, not the tiles: at M = 64 a 128-row tile computes half empty (session 58, H200: v20 at
/// 64 × 64128 × 3072 and 64 × 128256 × 4096, 0.49× cuBLAS, where one wave of 128-row tiles looked full).
///
/// ```text
/// fill(rows, tiles, slots) = M · tiles / (rows · ⌈M/rows⌉ · ⌈tiles / slots⌉ · slots)
/// v19 when fill(64, ⌈M/64⌉·⌈N/128⌉, 3·SMs) > fill(128, ⌈M/128⌉·⌈N/128⌉, 2·SMs)
/// ```
pub fn v19_fills_waves_better(s: Shape, sms: u32) -> bool {
    let (m, n, sms) = (s.m as u64, s.n as u64, sms.max(1) as u64);
    let (r19, r11) = (layout::sgemm::V14_ROWS as u64, layout::sgemm::BM as u64);
    let (t19, t11) = (m.div_ceil(r19) * n.div_ceil(layout::sgemm::BN as u64), m.div_ceil(r11) * n.div_ceil(layout::sgemm::BN as u64));
    let (s19, s11) = (layout::sgemm::V19_SPLIT.0 as u64 * sms, 2 * sms);
    // The M · tiles / rows over ⌈M/rows⌉ · waves · slots of each, cross-multiplied (u128: no overflow
    // for dimensions ≤ 2^20); M cancels.
    let lhs = (t19 as u128) * (r11 * m.div_ceil(r11)) as u128 * (t11.div_ceil(s11) * s11) as u128;
    let rhs = (t11 as u128) * (r19 * m.div_ceil(r19)) as u128 * (t19.div_ceil(s19) * s19) as u128;
    lhs > rhs
}

/// Whether v14's grid (64×128 tiles × splits) would fill under half of the `sms` SMs.
pub fn v14_starves(s: Shape, sms: u32) -> bool {
    let (m, n, k) = (s.m as u32, s.n as u32, s.k as u32);
    let tiles = m.div_ceil(layout::sgemm::V14_ROWS) as u64 * n.div_ceil(layout::sgemm::BN) as u64;
    let (splits, _) = steps::V14.split_k(m, n, k, sms, 1);
    2 * tiles * (splits as u64) < sms as u64
}

/// On a GPU that runs `sm_90a` code (`hopper`), the Hopper form of `st` for `s`: C zeroed by a grid
/// the GEMM overlaps (programmatic dependent launch) and, with N % 4 == 0, the split-K adds as vector
/// reductions — v19 → v24 (N % 4 == 0), v31 (N off 4, K % 16 == 0: v25's adds, each as wide as its
/// address's alignment allows, and v31's loop) or v32 (N off 4, K off 16: v31's loop with a predicated
/// last stage), v15 → v23 or v26 (v22 with v25's reductions); any
/// other step as it is. With N off 4 a row of C is not 16-byte aligned:
/// v24 would add element by element, and its splits (three blocks per SM at any tile count) were then
/// slower than v21 unsplit (127×8191×1024: 71% of cuBLAS against 83%, session 20 `call2`).
pub fn hopper_form(st: &'static Step, s: Shape, hopper: bool) -> &'static Step {
    let vec4 = s.n % 4 == 0;
    match st.kernel.name {
        n if hopper && n == steps::V19.kernel.name => if vec4 {
            &steps::V24
        } else if s.k % 16 == 0 {
            &steps::V31
        } else {
            &steps::V32
        },
        n if hopper && n == steps::V15.kernel.name => if vec4 { &steps::V23 } else { &steps::V26 },
        _ => st,
    }
}

/// The default SGEMM step for `s` on a GPU with `sms` SMs: on one that runs `sm_90a` code (`hopper`) the
/// cheapest candidate by [`cost::model_step`] (since session 87); elsewhere [`base_step`] (the module doc
/// gives the measurements).
pub fn default_step(s: Shape, sms: u32, hopper: bool) -> &'static Step {
    if hopper {
        return cost::model_step(s, sms);
    }
    base_step(s, sms)
}

/// [`default_step`] with `model`'s constants on Hopper (a calibration of the GPU in hand:
/// [`calibrate::model_for`]).
pub fn default_step_by(model: &cost::F32Model, s: Shape, sms: u32, hopper: bool) -> &'static Step {
    if hopper {
        return model.pick(s, sms);
    }
    base_step(s, sms)
}

/// The default step's tiles and loop for `s` (the choice among v11–v20 by shape).
pub fn base_step(s: Shape, sms: u32) -> &'static Step {
    let (m, n) = (s.m as u32, s.n as u32);
    let tiles_128 = m.div_ceil(layout::sgemm::BM) as u64 * n.div_ceil(layout::sgemm::BN) as u64;
    if s.m <= SMALL_GROUP_MAX_M {
        &steps::V34
    } else if s.m <= SKINNY_MAX_M {
        &steps::V33
    } else if s.m <= QUARTER_TILE_MAX_M || v14_starves(s, sms) {
        &steps::V15
    } else if V19_MAX_TILES_PER_SM.1 * tiles_128 < V19_MAX_TILES_PER_SM.0 * sms as u64 {
        &steps::V19
    } else if n % 4 == 0 && v19_fills_waves_better(s, sms) {
        &steps::V19
    } else {
        tile128_form(s)
    }
}

/// The 128×128-tile step for `s`: v11 where every tile lies inside M and N, else v20 (v11 with one clamped
/// loop per launch).
pub fn tile128_form(s: Shape) -> &'static Step {
    if s.m % layout::sgemm::BM as usize != 0 || s.n % layout::sgemm::BN as usize != 0 { &steps::V20 } else { &steps::V11 }
}

/// The step for `s`: `step` if given (refused naming the rule when it cannot take `s`), else
/// [`default_step`]. Pure: the CPU tests cover it.
pub fn choose(s: Shape, sms: u32, hopper: bool, step: Option<&'static Step>) -> Result<&'static Step> {
    choose_by(&cost::F32Model::shipped("H200"), s, sms, hopper, step)
}

/// [`choose`] with `model`'s constants ([`default_step_by`]).
pub fn choose_by(model: &cost::F32Model, s: Shape, sms: u32, hopper: bool, step: Option<&'static Step>) -> Result<&'static Step> {
    let st = step.unwrap_or_else(|| default_step_by(model, s, sms, hopper));
    match st.rejects(s.m, s.n, s.k) {
        None => Ok(st),
        Some(why) => Err(Error::InvalidInput(format!("step {} cannot run {s}: {why}", st.kernel.step))),
    }
}

/// An SGEMM step by its label (`v11`, `v12`, `v13`, …: every step of the ladder).
pub fn step_by_label(label: &str) -> Result<&'static Step> {
    steps::STEPS.iter().find(|s| s.kernel.step == label).ok_or_else(|| Error::InvalidInput(format!(
        "step `{label}`: not an sgemm step (choose one of {})", steps::STEPS.iter().map(|s| s.kernel.step).collect::<Vec<_>>().join(", "))))
}

/// One shape's SGEMM, ready to run many times: the chosen step and its loaded kernel. The typed
/// [`GemmPlan::<f32>`](crate::gemm::GemmPlan) wraps it.
pub struct SgemmPlan {
    gpu: Gpu,
    shape: Shape,
    step: &'static Step,
    kernel: Kernel,
}

impl SgemmPlan {
    /// Chooses (or takes `step`, refused with the reason if this GPU or shape cannot run it) the step
    /// for `s` — on Hopper by this GPU's calibrated f32 model where `kernel-lab calibrate` kept one, else the
    /// shipped constants — and loads its kernel.
    pub fn new(gpu: &Gpu, s: Shape, step: Option<&'static Step>) -> Result<Self> {
        if let Some(st) = step
            && let Some(why) = gpu.cannot_run(&st.kernel)
        {
            return Err(Error::Unsupported { kernel: st.kernel.name.into(), needs: format!("step {}", st.kernel.step), have: why });
        }
        let hopper = gpu.cannot_run(&steps::V21.kernel).is_none();
        let step = choose_by(&calibrate::model_for(gpu), s, gpu.info.sms, hopper, step)?;
        s.grid(step, gpu.info.sms)?;
        let kernel = gpu.kernel(step.kernel.name)?;
        Ok(SgemmPlan { gpu: gpu.clone(), shape: s, step, kernel })
    }

    /// The step this plan runs.
    pub fn step(&self) -> &'static Step {
        self.step
    }

    /// Enqueues `c = a · b` (row-major f32; lengths checked against the plan's shape).
    pub fn run(&mut self, a: &CudaSlice<f32>, b: &CudaSlice<f32>, c: &mut CudaSlice<f32>) -> Result<()> {
        let (a, b, c) = (Operand::of(&self.gpu, a), Operand::of(&self.gpu, b), Operand::of(&self.gpu, c));
        self.run_at(a, b, c)
    }

    /// [`SgemmPlan::run`] on operands given by address (dense row-major f32, 16-byte aligned: checked).
    pub fn run_at(&mut self, a: Operand, b: Operand, c: Operand) -> Result<()> {
        launch::launch(&self.gpu, &self.kernel, self.step, self.shape, a, b, c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(m: usize, n: usize, k: usize) -> &'static str {
        default_step(Shape::new(m, n, k).unwrap(), 132, false).kernel.step
    }

    #[test]
    fn the_choice_follows_the_measured_ranges() {
        for (m, n, k, want) in [
            (1, 4096, 4096, "v34"), (16, 4096, 4096, "v33"), (17, 4096, 4096, "v15"), (32, 4096, 4096, "v15"), (16, 14336, 4096, "v33"), (1, 4096, 14336, "v34"),
            (512, 512, 512, "v15"), (16, 512, 512, "v33"), (768, 768, 768, "v19"), (48, 4096, 4096, "v19"), (64, 4096, 4096, "v19"), (128, 4096, 4096, "v19"), (256, 4096, 4096, "v19"),
            (127, 8191, 1024, "v19"), (1000, 1000, 1000, "v19"), (1024, 1024, 1024, "v19"), (512, 4096, 4096, "v19"), (300, 300, 200, "v15"),
            (1536, 1536, 1536, "v19"), (2000, 2000, 2000, "v20"), (4000, 4000, 4000, "v20"), (2048, 2050, 2048, "v20"), (1100, 2100, 100, "v19"),
            (3000, 3000, 3000, "v19"), (4095, 4095, 4095, "v20"), (3000, 3001, 3000, "v20"),
            (2048, 2048, 2048, "v11"), (4096, 4096, 4096, "v11"), (4096, 4096, 300, "v11"), (2048, 2048, 64, "v11"), (2000, 2000, 64, "v20"), (24, 2048, 1024, "v15"), (127, 1031, 1024, "v19"),
            // 197 tiles of 128×128 (< 198 = 1.5 · 132) go to v19 by count; 198 by waves (v19's 396 tiles
            // fill three blocks on every SM, v11's 198 three quarters of two); 264 fill v11's two waves
            // exactly (v19: 528 of 792) and stay on v11, or v20 one row short.
            (128 * 197, 128, 512, "v19"), (128 * 198, 128, 512, "v19"), (128 * 264, 128, 512, "v11"), (128 * 264 - 1, 128, 512, "v20"),
        ] {
            assert_eq!(label(m, n, k), want, "{m}x{n}x{k}");
        }
        assert!(v14_starves(Shape::new(512, 512, 512).unwrap(), 132), "32 tiles x 2 splits = 64 blocks");
        assert!(!v14_starves(Shape::new(768, 768, 768).unwrap(), 132), "72 tiles");
        assert!(v14_starves(Shape::new(300, 300, 200).unwrap(), 132), "15 tiles, K too short to split");
    }

    #[test]
    fn without_sm90a_skinny_shapes_keep_v33_and_v34() {
        for (m, n, k) in [(16, 14336, 4096), (12, 4096, 14336), (16, 11008, 4096), (16, 4096, 4096), (8, 14336, 4096), (1, 4096, 14336), (16, 14335, 4096)] {
            let s = Shape::new(m, n, k).unwrap();
            let skinny = if m <= SMALL_GROUP_MAX_M { "v34" } else { "v33" };
            assert_eq!(default_step(s, 132, false).kernel.step, skinny, "{s}: without sm_90a v33 / v34 stay (v15 there not measured)");
        }
    }

    #[test]
    fn v19_and_v15_take_their_hopper_forms() {
        for (m, n, k, plain, hopper) in [(512, 512, 512, "v15", "v23"), (32, 4096, 4096, "v15", "v23"), (64, 4096, 4096, "v19", "v24"),
                                         (1000, 1000, 1000, "v19", "v24"), (127, 8191, 1024, "v19", "v31"), (1000, 999, 1000, "v19", "v32"), (24, 4097, 1024, "v15", "v26"),
                                         (1, 4096, 4096, "v34", "v34"), (4096, 4096, 4096, "v11", "v11"), (2000, 2000, 2000, "v20", "v20")] {
            let s = Shape::new(m, n, k).unwrap();
            assert_eq!(default_step(s, 132, false).kernel.step, plain, "{s}");
            assert_eq!(hopper_form(base_step(s, 132), s, true).kernel.step, hopper, "{s}");
        }
        // On Hopper the model's picks are always the forms that run there: never v15, v19 or their
        // memset-zeroing twins.
        let mut x = 5u64;
        for _ in 0..2000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let s = Shape::new((x >> 10) as usize % 9000 + 1, (x >> 24) as usize % 60000 + 1, (x >> 40) as usize % 9000 + 1).unwrap();
            let st = default_step(s, 132, true);
            assert!(!["v15", "v19", "v21", "v22"].contains(&st.kernel.step), "{s}: {}", st.kernel.step);
            assert_eq!(st.kernel.name, hopper_form(st, s, true).kernel.name, "{s}");
        }
        // The PDL forms keep their base's tiles, grid and split rule (v24 v14's): only the kernel and its target differ.
        assert_eq!(steps::V24.split_k(1000, 1000, 1000, 132, 1), steps::V14.split_k(1000, 1000, 1000, 132, 1));
        assert_eq!(steps::V24.split_k(1000, 1000, 1000, 132, 1).0, 3, "1000³: three splits (94.7% of cuBLAS in call 2; v21 unsplit 84.6%)");
        assert_eq!((steps::V25.grid, steps::V29.grid, steps::V30.grid, steps::V31.grid, steps::V32.grid), (steps::V24.grid, steps::V24.grid, steps::V24.grid, steps::V24.grid, steps::V24.grid));
        for (pdl, base) in [(&steps::V21, &steps::V19), (&steps::V22, &steps::V15), (&steps::V23, &steps::V15), (&steps::V26, &steps::V15)] {
            assert_eq!((pdl.grid, pdl.args, pdl.kernel.block_threads, pdl.kernel.dyn_smem_bytes), (base.grid, base.args, base.kernel.block_threads, base.kernel.dyn_smem_bytes));
            assert_eq!(pdl.split_k(512, 512, 512, 132, 1), base.split_k(512, 512, 512, 132, 1));
        }
    }

    #[test]
    fn every_shape_gets_a_step_that_takes_it_and_forced_ones_are_checked() {
        let mut x = 99u64;
        for _ in 0..3000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let s = Shape::new((x >> 10) as usize % 5000 + 1, (x >> 24) as usize % 5000 + 1, (x >> 40) as usize % 5000 + 1).unwrap();
            for hopper in [false, true] {
                let st = choose(s, 132, hopper, None).unwrap();
                assert!(st.rejects(s.m, s.n, s.k).is_none(), "{s}");
                assert!(s.grid(st, 132).is_ok(), "{s}");
                assert_eq!(st.kernel.target == crate::steps::Target::Sm90a, hopper && ["v23", "v24", "v26", "v31", "v32"].contains(&st.kernel.step), "{s}");
            }
        }
        let e = choose(Shape::new(8, 8, 7).unwrap(), 132, true, Some(&steps::V10)).unwrap_err().to_string();
        assert!(e.contains("step v10") && e.contains("multiples of 4"), "{e}");
        assert_eq!(step_by_label("v13").unwrap().kernel.name, "sgemm_v13");
        assert_eq!(step_by_label("v33").unwrap().kernel.name, "sgemm_v33");
        let e = step_by_label("h6").unwrap_err().to_string();
        assert!(e.contains("not an sgemm step") && e.contains("v33"), "{e}");
    }
}

