#![cfg(lab_sm90)]
//! FP8 step f4: f3 with the **promotion overlapped with the next K block's MMAs**.
//!
//! Diff from f3: two sets of block accumulators (`r_blk0`, `r_blk1`, 64 registers each) used in turn:
//! block `kt`'s four `wgmma`s are issued into one set, *then* `wait_group 1` retires block `kt − 1`'s
//! group (the other set), which is released and promoted while block `kt`'s MMAs run. The warpgroup
//! never waits for its own last group inside the loop (f2/f3: `wait_group 0` every block, the tensor
//! core idle during the promotion unless the other consumer happens to fill it). The scales of block
//! `kt` are loaded when it is issued and used an iteration later (as f3, by construction). The loop is
//! unrolled by two so each set keeps fixed registers. Cost: 64 more registers per consumer thread
//! (~230 of the 232 `setmaxnreg` gives).
//!
//! Prediction: 1.1–1.2× f3. The loop is `fp8::block_scaled::Overlapped` (f6 runs it too).
//!
//! Measured: 826–892 TFLOP/s, 75–87% of cuBLASLt's block mode, 0.96–1.01× f3 (prediction missed). README.
use crate::fp8::block_scaled::{Overlapped, block_scaled};
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;
use layout::fp8::tiles::F2_BN;

/// [`super::v2_block_scaled::fp8_gemm_v2`] with f4's K loop.
///
/// # Safety
/// As `fp8_gemm_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v4(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                             sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the skeleton's proof and the K loop are `fp8::block_scaled`'s).
    unsafe { block_scaled::<Overlapped, F2_BN, 1>(tmap_a, tmap_b, tmap_c, sa, sb, m, n, k) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v4, 384, 1);
