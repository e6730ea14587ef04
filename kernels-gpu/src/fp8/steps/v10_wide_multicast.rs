#![cfg(lab_sm90)]
//! FP8 step f10: f9 (128×192 tiles, block scales) in **clusters of two CTAs sharing B through TMA
//! multicast**, as f6 did for f4.
//!
//! Diff from f9: the cluster machinery of f5/f6 (each CTA of a pair of vertically adjacent tiles loads
//! 96 of the tile's 192 B rows and multicasts them to both; consumers release each stage in both CTAs;
//! cluster barriers at start and exit). The K loop is f9's, unchanged.
//!
//! Why: re-timed in session 13 (H100, `results/2026-11-23-h100-session13/call2`), f9 is the best
//! block-scaled step at 8192³ (1022 TFLOP/s, 89% of cuBLASLt's block mode) and f3 at 4096³ (966, 83%).
//! ncu (session 8, call 2) had f3 at 74% of the L2's throughput and f9 at 57%. f6's multicast was
//! measured on f4, whose own K loop was slower than f3's; on f9 each stage's 40 KiB read from L2 become
//! 28 KiB (A's 16 KiB + half of B's 24 KiB), and the TMA's latency per stage shrinks with it.
//!
//! Prediction: 1.03–1.08× f9 where f9 fills its waves (8192³, 4096×28672×8192); the same wave losses
//! as f9 elsewhere (the pairs walk the same tiles).
//!
//! Measured (H100, session 13 call 3): **0.965–0.99× f9** at all six shapes (1004 against 1024 TFLOP/s
//! at 8192³, 1016 against 1053 at 4096×28672×8192). Prediction missed: halving B's L2 traffic buys
//! nothing, so f9 is not bound by the L2 (ncu, call 4: its full-barrier wait is 3.6% of the consumer
//! warps' stall samples; the tensor pipe is 67% busy). Kept as the measured negative; README.
use crate::fp8::block_scaled::{Wide192, block_scaled};
use crate::launch_bounds::launch_bounds;
use crate::prim::{cluster_dims, tma::TensorMap};
use layout::fp8::tiles::F9_BN;

/// [`super::v9_wide_192::fp8_gemm_v9`] in clusters of two (`tmap_b`'s box 96 rows × 128 B).
///
/// # Safety
/// As `fp8_gemm_v9`, with a grid that is a multiple of 2 and `tmap_b`'s box 96 rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v10(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                              sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the skeleton's proof in `fp8::block_scaled`, the K loop f9's).
    unsafe { block_scaled::<Wide192, F9_BN, 2>(tmap_a, tmap_b, tmap_c, sa, sb, m, n, k) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v10, 384, 1);
cluster_dims!(fp8_gemm_v10, 2);
