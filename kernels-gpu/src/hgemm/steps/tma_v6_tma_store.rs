#![cfg(lab_sm90)]
//! Hopper step h6: h5 with a **TMA-store epilogue**: each consumer warpgroup writes its 64×256 f16 result
//! into shared memory in the TMA's `SWIZZLE_128B` layout and one thread stores it with four
//! `cp.async.bulk.tensor` stores (the TMA clips rows ≥ M and columns ≥ N, so no bounds checks).
//!
//! Diff from h5:
//! * 3 stages instead of 4 (the 2 × 32 KiB C staging tiles must fit beside the ring: 144 + 64 KiB);
//! * epilogue: wait until the previous tile's store has read the staging tile, a warpgroup barrier
//!   (`bar.sync 1 + mh, 128`), `st.shared.b32` of each accumulator pair at
//!   [`layout::hopper::TmaTile2d::smem_byte`] (the same function the CPU tests check against the
//!   documented swizzle), `fence.proxy.async` (generic-proxy writes → the TMA's async proxy), barrier,
//!   then thread 0 of the warpgroup issues the stores and commits them; the kernel waits for them before
//!   exiting.
//! * Bank model: lanes (g, t) of a warp write row g, bytes 16j + 4t of each box: the swizzle sends the 8
//!   rows to 8 different 16-byte chunks, so each `st.shared.b32` is conflict-free (unswizzled it would be
//!   8-way: rows 128 bytes apart).
//!
//! Prediction: consumers leave the epilogue sooner (no 64 scattered global stores per box): ~1.02–1.05× h5.
//! Measured (H200): 97–101% of cuBLAS at 4096³, 98–99% at 8192³ over six runs — the best step; the
//! epilogue's `st.shared` are conflict-free under `ncu` as the model predicts.
use super::elem::{Bf16, F16};
use super::tma_store_body::tma_store;
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;

/// Stages in the ring.
pub const STAGES: u32 = layout::hopper::tma_hgemm::H6_STAGES;

/// `C = A · B` as [`super::tma_v5_persistent::hgemm_tma_v5`], storing C through the TMA: `tmap_c`
/// describes C (M×N f16, box 64 × 64, `SWIZZLE_128B`).
///
/// # Safety
/// As h5, with `tmap_c` (in global memory) describing a live, writable C in place of `g_c`, and
/// `STAGES · 48 KiB + 64 KiB + 1024 + 16 · STAGES` bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v6(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                               m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { tma_store::<F16, 1, STAGES>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

/// [`hgemm_tma_v6`] on bf16 A, B and C (`wgmma … .bf16.bf16`, bf16 epilogue); the tensor maps describe
/// bf16 matrices.
///
/// # Safety
/// As [`hgemm_tma_v6`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v6_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                                    m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { tma_store::<Bf16, 1, STAGES>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

/// h6 with 4 stages (`layout::hopper::tma_hgemm::H9S4_STAGES`), its C staged and stored half a
/// consumer tile at a time (`wide_staged_boxes`): the control that separates h9s4's fourth stage
/// from its multicast (`tma_v9_multicast.rs` has the prediction and the measurement). It turned out
/// the better step — 1.03–1.06× h6 at 4096³, 8192³ and the prefill shapes, tensor pipe 90 → 95% at
/// 4096³ — and the `gemm` entry point's choice where it took h6.
///
/// # Safety
/// As [`hgemm_tma_v6`], with `H9S4_DYN_SMEM` bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v6_s4(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                                  m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { tma_store::<F16, 1, { layout::hopper::tma_hgemm::H9S4_STAGES }>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

/// [`hgemm_tma_v6_s4`] on bf16.
///
/// # Safety
/// As [`hgemm_tma_v6_s4`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v6_s4_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                                       m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { tma_store::<Bf16, 1, { layout::hopper::tma_hgemm::H9S4_STAGES }>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_tma_v6, 384, 1);
launch_bounds!(hgemm_tma_v6_bf16, 384, 1);
launch_bounds!(hgemm_tma_v6_s4, 384, 1);
launch_bounds!(hgemm_tma_v6_s4_bf16, 384, 1);
