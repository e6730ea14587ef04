#![cfg(lab_sm90)]
//! FP8 step f18: f17 with a **fourth stage**, each consumer's C staged and stored **one 64×64 box at a
//! time** to make room (HGEMM h6s4's / FP8 f12's change, carried to the three-consumer CTA).
//!
//! Diff from f17: `fp8::tall::<4>` — the ring is 4 × 48 KiB, each consumer's staging area one 8 KiB box
//! (`layout::fp8::tiles::F18_STAGES`, `F18_C_STAGE_BYTES`); the epilogue runs `store_tile_of::<1, 3>`
//! three times, each round waiting until the TMA has read the previous box.
//!
//! Why: f17 measured 0.93–0.94× f14 per unit of work (its file). f17 has one stage fewer than f14, and
//! on the 128×256 tile the fourth stage was worth 1.01–1.07× (f12 against f1, session 16).
//!
//! Prediction (before any run): 1.03–1.06× f17 per unit of work (the fourth stage's gain, less ~1% for
//! three store rounds per tile where f17 has one), so **1.00–1.04× f14 at 2048×11008×4096** and
//! still 0.92–0.97× at the shapes whose waves favour 128×256; if f18 is no faster than f17, the stage
//! count is not what costs f17 and the three-consumer tile itself is slower per unit of work.
//!
//! Measured (H100, session 23 call 2, `kernel-lab ab`, 8 rounds each, every round won where not said):
//! **1.063–1.088× f17** at the six sweep shapes (prediction 1.03–1.06×: slightly above), and against f14
//! **1.092× at 2048×11008×4096**, 1.009× at 4096×28672×8192 (4/8), 0.989× at 8192³ (3/8), 0.90–0.91×
//! at 4096³, 2048×4096×11008 and 2048×14336×4096, where 192×192 tiles waste more of their rounds.
//! Dividing out the waves, f18 does 1.01–1.04× f14's work per unit of time. `ncu` at 2048×11008×4096
//! (one launch): 133.3 µs against f14's 142.0 and f17's 143.9; tensor pipe 90.8% of active cycles
//! (f14 84.7%, f17 81.3%); busiest SM 204.7 k cycles against f14's 227.8 k (cuBLASLt's 192×192 kernel:
//! 210–216 k in session 18). FP8 tests 8/8 with f18 on every ragged shape; memcheck / racecheck /
//! synccheck 0. The library runs f18 where the wave model has it ≥ 3% ahead (`per_tensor_step_for`): at
//! 2048×11008×4096 (re-measured on the final code: 1.046× f14, 12/12 rounds; 0.988× at 4096×28672×8192).
use crate::fp8::tall::tall;
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;
use layout::fp8::tiles::F18_STAGES;

/// [`super::v17_three_consumers::fp8_gemm_v17`] with four stages.
///
/// # Safety
/// As `fp8_gemm_v17`, with `F18_DYN_SMEM` bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v18(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                              scale_a: *const f32, scale_b: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the proof is the shared body's, `fp8::tall`).
    unsafe { tall::<F18_STAGES>(tmap_a, tmap_b, tmap_c, scale_a, scale_b, m, n, k) }
}

// 512 threads, one CTA per SM (as f17).
launch_bounds!(fp8_gemm_v18, 512, 1);
