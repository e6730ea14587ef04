#![cfg(lab_sm90)]
//! FP8 step f8: f3 with the two consumer warpgroups **taking turns to issue** (FA3's ping-pong, on
//! the promoted K loop).
//!
//! Diff from f3: before its four `wgmma`s of a K block, consumer warpgroup `mh` waits for its turn
//! (named barrier 3 + `mh`, 256 threads), and right after committing them it passes the turn to the
//! other warpgroup (`bar.arrive`). Warpgroup 1 opens the first turn; warpgroup 0 takes the last pass
//! when it is done. The issue order on the tensor cores becomes 0, 1, 0, 1, … per K block.
//!
//! Why: in f3 both warpgroups wait on the same full barrier and issue their `wgmma`s at the same time,
//! so their groups share the tensor cores and retire together; then both promote (64 FFMAs each, their
//! warps on the same four schedulers) and the tensor cores have nothing queued. ncu on f4 (session 6):
//! ~917 cycles per K block of a CTA (234 745 cycles, 256 K blocks per SM) where the MMAs need 512 and
//! shared memory ~640 (48 KiB of `wgmma` reads + 32 KiB of TMA writes at 128 B/cycle). In turns,
//! warpgroup 0's group runs first and retires while warpgroup 1's still runs, so each promotion hides
//! behind the other warpgroup's MMAs. f4 tried to hide the promotion inside one warpgroup (two
//! accumulator sets) and measured ≈ f3: the two warpgroups' groups still retire together.
//!
//! Prediction: 1.15–1.3× f3 (toward the ~640-cycle shared-memory bound: ~1000–1150 TFLOP/s at 4096³),
//! if the tensor cores run groups in issue order; ≈ f3 if they interleave the two warpgroups' groups.
//!
//! Measured (H100, `results/2026-11-23-h100-session8/call1-f8-pingpong`): **0.93–0.96× f3** at the six
//! shapes (813–875 TFLOP/s against f3's 866–914); prediction missed, in the wrong direction. ncu at
//! 4096³: 232 185 cycles against f3's 224 300, the same issue-slot use (35–36%) and L2 throughput
//! (69–71%). So the two warpgroups' MMAs were not retiring together in f3 — the promotion was
//! already hidden — and the turns only add a wait. What bounds 128×128 tiles is the next step's
//! subject (f9). The step stays as the measured negative.
//!
//! The loop is `fp8::block_scaled::ScalesAhead::<true>`.
use crate::fp8::block_scaled::{ScalesAhead, block_scaled};
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;
use layout::fp8::tiles::F2_BN;

/// [`super::v2_block_scaled::fp8_gemm_v2`] with f8's K loop.
///
/// # Safety
/// As `fp8_gemm_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v8(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                             sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the skeleton's proof and the K loop, turns included, are `fp8::block_scaled`'s).
    unsafe { block_scaled::<ScalesAhead<true>, F2_BN, 1>(tmap_a, tmap_b, tmap_c, sa, sb, m, n, k) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v8, 384, 1);
