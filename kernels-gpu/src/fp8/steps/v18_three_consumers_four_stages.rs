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
