#![cfg(lab_sm90)]
//! FP8 step f3: f2 with the **scales loaded one K block ahead**.
//!
//! Diff from f2: f2 loads a K block's three scales (`sa` of the thread's two rows, the tile's `sb`)
//! from global memory right after issuing that block's `wgmma`s and needs them right after
//! `wait_group 0`: an L2 round trip (~600–800 cycles under load) against 4 `m64n128k32` (~256 tensor
//! cycles per warpgroup), so the promotion, and with it the release of the stage and the next block's
//! MMAs, waited for the loads. f3 loads block `kb + 1`'s scales while block `kb` computes (three more
//! registers) and the first block's before the loop.
//!
//! Measured f2 (H100): 800 TFLOP/s at 4096³, 42% of the FP8 peak where f1 reaches 68%: about 700 idle
//! cycles per K block, the size of the scale loads' latency. Prediction: 1.3–1.4× f2 (~1050–1100
//! TFLOP/s at 4096³).
//!
//! Measured: the first version multiplied the scales right after loading them and ran at 0.92–0.98× f2
//! — a warp stalls at the first instruction that reads a loaded register, so the multiply waited out
//! the load right there (ncu: 42% of f2's issue stalls on L1TEX). Carrying the raw values and
//! multiplying at the promotion (`Scales::load`): 1.05–1.15× f2, 839–893 TFLOP/s, 78–90% of cuBLASLt's
//! block mode — the best promoted step, the library's block-scaled default. README.
use crate::fp8::block_scaled::{ScalesAhead, block_scaled};
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;
use layout::fp8::tiles::F2_BN;

/// [`super::v2_block_scaled::fp8_gemm_v2`] with f3's K loop.
///
/// # Safety
/// As `fp8_gemm_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v3(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                             sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the skeleton's proof and the K loop are `fp8::block_scaled`'s).
    unsafe { block_scaled::<ScalesAhead<false>, F2_BN, 1>(tmap_a, tmap_b, tmap_c, sa, sb, m, n, k) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v3, 384, 1);
