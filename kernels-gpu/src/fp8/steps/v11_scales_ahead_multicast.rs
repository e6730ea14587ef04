#![cfg(lab_sm90)]
//! FP8 step f11: f3 (128×128 tiles, block scales loaded a block ahead) in **clusters of two CTAs
//! sharing B through TMA multicast** — f10's change on the narrower tile.
//!
//! Diff from f3: the cluster machinery of f5/f6 (each CTA of a pair of vertically adjacent tiles loads
//! 64 of the tile's 128 B rows and multicasts them to both). The K loop is f3's, unchanged.
//!
//! Why: f3 is the library's block-scaled step where f9's coarser tiles leave a last wave idle (4096³,
//! 2048×11008×4096, …), and it reads more from L2 per unit of work than f9: 32 KiB per 128×128×128
//! block (ncu: 74% of the L2's throughput at 4096³). Sharing B: 24 KiB. f6 made this change on f4 and
//! measured −13% to +3% of f4 (session 6), then −1% to +3% in session 13's re-timing (call 2) — on a K
//! loop that was itself 0.95–1.01× f3's in that call.
//!
//! Prediction: 1.02–1.06× f3.
//!
//! Measured (H100, session 13 call 3): **0.965–1.00× f3** (940 against 968 TFLOP/s at 4096³). Missed,
//! as f10's: the data is not late. README.
use crate::fp8::block_scaled::{ScalesAhead, block_scaled};
use crate::launch_bounds::launch_bounds;
use crate::prim::{cluster_dims, tma::TensorMap};
use layout::fp8::tiles::F2_BN;

/// [`super::v3_scales_ahead::fp8_gemm_v3`] in clusters of two (`tmap_b`'s box 64 rows × 128 B).
///
/// # Safety
/// As `fp8_gemm_v2`, with a grid that is a multiple of 2 and `tmap_b`'s box 64 rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v11(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                              sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the skeleton's proof and the K loop are `fp8::block_scaled`'s).
    unsafe { block_scaled::<ScalesAhead<false>, F2_BN, 2>(tmap_a, tmap_b, tmap_c, sa, sb, m, n, k) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v11, 384, 1);
cluster_dims!(fp8_gemm_v11, 2);
