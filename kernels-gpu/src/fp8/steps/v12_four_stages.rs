#![cfg(lab_sm90)]
//! FP8 step f12: f1 with a **fourth stage** (and f13: f5 with it) — HGEMM h6s4's change carried over.
//!
//! Why: f1 is h6 on e4m3, byte for byte the same ring (3 stages of 48 KiB: A 128 rows × 128 B, B 256
//! rows × 128 B) and the same 64 KiB of C staging. On the f16 ladder, giving h6 a fourth stage (C
//! staged and stored in two halves to make room, `layout::hopper::tma_hgemm::wide_staged_boxes`) was
//! worth 1.03–1.06× at 4096³, 8192³ and the prefill shapes and took the tensor pipe from 90% to 95%
//! busy at 4096³ (`results/2026-11-23-h100-session15/`, HGEMM README, h9/h6s4); multicast was worth
//! nothing there. An FP8 `wgmma` takes half an f16 one's time per byte of stage, so a stage covers half
//! the latency it covers in h6 and the ring's depth should matter more, not less. f1 measured 79.5% tensor
//! pipe busy (session 8, `ncu`).
//!
//! Diff from f1 / f5: the body's `STAGES` is 4 (`layout::fp8::tiles::F12_STAGES`); the epilogue stages
//! boxes 0–1 of each consumer's 64×256, stores them, and stages 2–3 once the TMA has read them
//! (`hgemm::tma_store::store_wide_tile`, shared with h6s4). Nothing else.
//!
//! Prediction (before any run; written in session 15, which had no GPU left to measure it): f12
//! **1.04–1.08× f1** at 4096³, 8192³ and the LLM projection shapes, f13 1.03–1.06× f5 — at or above
//! cuBLASLt's fast-accumulation FP8 where f1 is at 91–97% of it.
//!
//! Measured (H100, session 16, `results/2026-11-25-h100-session16/call1-fp8-f12-f13`, every step
//! interleaved with each cuBLASLt mode in one run; % of Lt fast-accumulation / default mode):
//! f12 **101.1 / 105.9%** at 4096³ (f1 98.7 / 102.8%), 99.1 / 100.9% at 8192³ (f1 97.4 / 97.4%),
//! 94.0 / 96.9% at 2048×11008×4096 (f1 91.3 / 95.2%), 101.0 / 105.2% at 2048×4096×11008 (f1 95.4 /
//! 98.6%), 100.4 / 101.3% at 2048×14336×4096 (f1 94.2 / 100.3%), 99.1 / 103.2% at 4096×28672×8192 (f1
//! 95.3 / 101.3%): **1.01–1.07× f1 by the ratios** (prediction 1.04–1.08×: reached in at least one mode
//! at 2048×4096×11008, 2048×14336×4096 and 4096×28672×8192 only); f13 against f5 −4% to +5%
//! (prediction 1.03–1.06×: not met). Call 3 repeated f12 within 1–3 points.
//! The library's per-tensor default moved to f14 (this step plus a stream-K tail, `v14_stream_k.rs`).
use crate::fp8::wide::{PerTensor, wide};
use crate::launch_bounds::launch_bounds;
use crate::prim::{cluster_dims, tma::TensorMap};
use layout::fp8::tiles::F12_STAGES;

/// [`super::v1_per_tensor::fp8_gemm_v1`] with four stages.
///
/// # Safety
/// As `fp8_gemm_v1`, with `F12_DYN_SMEM` bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v12(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                              scale_a: *const f32, scale_b: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the proof is the shared body's, `fp8::wide`).
    unsafe { wide::<PerTensor, 1, F12_STAGES>(tmap_a, tmap_b, tmap_c, scale_a, scale_b, m, n, k) }
}

/// [`super::v5_multicast::fp8_gemm_v5`] with four stages (f13).
///
/// # Safety
/// As `fp8_gemm_v5`, with `F12_DYN_SMEM` bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v13(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                              scale_a: *const f32, scale_b: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { wide::<PerTensor, 2, F12_STAGES>(tmap_a, tmap_b, tmap_c, scale_a, scale_b, m, n, k) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v12, 384, 1);
launch_bounds!(fp8_gemm_v13, 384, 1);
cluster_dims!(fp8_gemm_v13, 2);
