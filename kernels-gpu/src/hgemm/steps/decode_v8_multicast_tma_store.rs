#![cfg(lab_sm90)]
//! Decode-ladder step d8 — d7 in **clusters of two CTAs sharing the weight boxes** (d6's multicast on
//! d7's epilogue).
//!
//! Why: d6 (d3 in clusters of two) measured 1.03–1.13× d3 at 256–512 × 4096², 256×4096×14336, 192×4096²
//! and 1000³, but 0.87× at 1024³ and 0.97–0.99× at M = 128 (`results/2026-11-23-h100-session14/
//! call1-d6`), while d3's 16-bit stores were still most of what separated it from cuBLAS. d7 removed
//! those (1.16–1.32× d3). With the epilogue no longer in the way, the K loop's share of the time is
//! larger, and so is what sharing the weights could save there.
//!
//! Diff from d7 (the shared body, `decode_swapped::decode::<E, 2, true>`; d7 is `<E, 1, true>`):
//! d6's changes — `.reqnctapercluster 2`, vertically adjacent tiles per cluster, weight box `rank`
//! multicast into both CTAs, every consumer warp releasing a stage in both CTAs — on d7's ring and
//! TMA-store epilogue.
//!
//! Prediction (before running): where d6 gained over d3 it gains over d7 by as much or more
//! (**1.04–1.12×** at 256×4096², 256×4096×14336, 512×4096²); where d6 lost (1024³, M = 128) **0.9–1.0×**.
//!
//! Measured (H100, `results/2026-11-23-h100-session14/call4-d8-ragged`, interleaved with d7 in 8
//! rounds): **slower everywhere but 1000³** — 0.82× at 1024³, 0.84× at 512×4096², 0.87–0.88× at
//! 256×4096² and 192×4096², 0.90× at 256×4096×14336, 0.98× at 128×14336×4096, 1.05× at 1000³. The
//! pair's consumers release each stage in both CTAs, so the slower CTA paces both; with nothing left
//! to save in L2 bandwidth that coupling is all that remains. Kept as a measured negative; not chosen.
use super::decode_swapped::decode;
use super::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::{cluster_dims, tma::TensorMap};

/// [`super::decode_v7_tma_store::hgemm_decode_v7`] in clusters of two CTAs sharing the weight boxes.
///
/// # Safety
/// As `hgemm_decode_v7`, with a grid that is a multiple of 2 (the clusters, compiled in).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v8(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, g_c: *mut u16,
                                                  ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, splits: u32) {
    // SAFETY: forwarded (the proof is the shared body's, `decode_swapped::decode`).
    unsafe { decode::<F16, 2, true>(tmap_a, tmap_b, tmap_c, g_c, ws, count, m, n, k, splits) }
}

/// [`hgemm_decode_v8`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v8`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v8_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, g_c: *mut u16,
                                                       ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, splits: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16, 2, true>(tmap_a, tmap_b, tmap_c, g_c, ws, count, m, n, k, splits) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v8, 384, 1);
launch_bounds!(hgemm_decode_v8_bf16, 384, 1);
cluster_dims!(hgemm_decode_v8, 2);
cluster_dims!(hgemm_decode_v8_bf16, 2);
