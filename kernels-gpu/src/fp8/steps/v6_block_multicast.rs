#![cfg(lab_sm90)]
//! FP8 step f6: f4 (block scales, promotion overlapped) in **clusters of two CTAs sharing B through
//! TMA multicast**, as f5 does for f1.
//!
//! Diff from f4: the cluster machinery of f5 (each CTA loads half of the 128-row B tile and multicasts
//! it; consumers release stages in both CTAs; cluster barriers at start and exit). The scales are
//! unchanged: the two CTAs have different rows (their own `sa`) and the same `sb`.
//!
//! Why: f2–f4 move `M·K·N/128 + N·K·M/128` bytes from L2 (8.6 GB at 8192³; 6.7 TB/s at f4's 1.29 ms):
//! L2-bound like f1, more so with 128-wide tiles. Sharing B: `M·K·N/128 + N·K·M/256` (6.4 GB).
//!
//! Prediction: 1.15–1.3× f4.
//!
//! Measured: −13% to +3% of f4 (757–901 TFLOP/s). README.
use crate::fp8::block_scaled::{Overlapped, block_scaled};
use crate::launch_bounds::launch_bounds;
use crate::prim::{cluster_dims, tma::TensorMap};
use layout::fp8::tiles::F2_BN;

/// [`super::v4_promotion_overlap::fp8_gemm_v4`] in clusters of two (`tmap_b`'s box 64 rows × 128 B).
///
/// # Safety
/// As `fp8_gemm_v2`, with a grid that is a multiple of 2 and `tmap_b`'s box 64 rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v6(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                             sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the skeleton's proof and the K loop are `fp8::block_scaled`'s).
    unsafe { block_scaled::<Overlapped, F2_BN, 2>(tmap_a, tmap_b, tmap_c, sa, sb, m, n, k) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v6, 384, 1);
cluster_dims!(fp8_gemm_v6, 2);
