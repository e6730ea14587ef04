#![cfg(lab_sm90)]
//! Hopper step h11 — h6s4 on tiles of **128 × 192** (`wgmma.m64n192k16`, three B boxes a stage), for
//! shapes whose 128×256 tiles leave the GPU's last wave partly empty where 128×192 tiles fill it.
//!
//! Why: at M = 768, N = 4096 (a prefill chunk of 768 tokens through a 4096-wide projection) h6s4 has
//! 6 × 16 = 96 tiles for 132 SMs — one wave, 27% of the SMs idle — and ran at 77–82% of cuBLAS at
//! K = 4096, 11008 and 14336 (`results/2026-11-26-h100-session27/call10`). 128×192 tiles make 6 × 22 =
//! 132: every SM busy, each tile three quarters of the work. d19's 128×128 tiles (192 of them, two
//! rounds) measured 0.90–0.91× h6s4 there (`call9`).
//!
//! Diff from h6s4 (`tma_store_body::tma_store::<E, 1, 4>`): a stage is A's 128 rows and **three** B
//! boxes (40 KiB, [`H11_STAGE_BYTES`]); each consumer warpgroup runs h6's K loop
//! (`tma_wide_tile::consume_wide_tile`) with `wgmma.m64n192k16` into 96 accumulators
//! (`[[f32; 32]; 3]`: its `WideAcc`) and stages its three C boxes at once (24 KiB each) before one TMA
//! store sequence. The producer and the walk over tiles are h6's, with 192-column tiles. The body is
//! `tma_wide_body::wide_tiles` (shared with h12 since session 96: the width and the accumulators its
//! parameters, the epilogue the accumulators' `WideStore`).
//!
//! Prediction (before running): per tile 0.75× h6s4's work and one wave instead of one partial wave:
//! **1.2–1.3× h6s4 at 768×4096×K** (the fill model gives 1.33×; a 192-wide `wgmma` reads B's 8 KiB
//! boxes as the 256-wide does, A's 16 KiB once per 192 columns instead of 256); below h6s4 where
//! 128×256 tiles already fill their waves (4096³: 6 rounds of 128×192 against 4 of 128×256).
use super::elem::{Bf16, F16};
use super::tma_wide_body::wide_tiles;
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;
use layout::hopper::tma_hgemm::{H11_BN, H11_STAGE_BYTES, H11_STAGES};

/// h6s4 on 128×192 tiles (the file's doc): `C (M×N) = A (M×K) · B (K×N)`, f16, f32 accumulation.
///
/// # Safety
/// sm_90a; 384 threads, `H11_DYN_SMEM` bytes of dynamic shared memory, a 1-D grid of at most
/// `⌈M/128⌉·⌈N/192⌉` CTAs; `tmap_a` describes A (M×K f16, box 128 × 64), `tmap_b` B (K×N, box 64 × 64),
/// `tmap_c` C (M×N, box 64 × 64), all `SWIZZLE_128B`, in device memory and valid for the launch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v11(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the body's proof).
    unsafe { wide_tiles::<F16, [[f32; 32]; 3], H11_BN, H11_STAGES, H11_STAGE_BYTES>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

/// [`hgemm_tma_v11`] on bf16.
///
/// # Safety
/// As [`hgemm_tma_v11`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v11_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { wide_tiles::<Bf16, [[f32; 32]; 3], H11_BN, H11_STAGES, H11_STAGE_BYTES>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

launch_bounds!(hgemm_tma_v11, 384, 1);
launch_bounds!(hgemm_tma_v11_bf16, 384, 1);
