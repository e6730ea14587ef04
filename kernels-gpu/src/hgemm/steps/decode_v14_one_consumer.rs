#![cfg(lab_sm90)]
//! Decode step d14 — d13 (12 stages) with **one consumer warpgroup** that takes every stage, so the two
//! halves of the sum never meet in shared memory: 256 threads, no exchange, no named barrier.
//!
//! Why: d13 cut the fixed cost of a launch by ~1.1 µs (the 8-accumulator epilogue) and reads the
//! weights at 84% of a copy at 1 / 16 × 4096², short of 85% by ~0.15 µs. What is left after the last
//! stage on warpgroup 0's path: warpgroup 1's partial sums through shared memory (8 `st.shared`, a
//! named barrier, 8 `ld.shared` + adds), then the stores and a second named barrier. d4 split the
//! stages between two warpgroups because an `m64n64k16` stage kept one busy; an `m64n16k16` stage is a
//! quarter of that, and one group in flight (`wait_group 1`, h4's loop) hides its latency behind the
//! next stage's wait.
//!
//! Diff from d13: `warp_specialized! { consumers: 1, … }` (the empty barriers count the consumer's 4
//! warps); the K loop is d3's (`wait_group 1`, the previous stage released after the next is
//! committed); the epilogue stores the 4 pairs straight from the accumulators. The ring no longer has
//! to be even (no alternation); it keeps d13's 12 stages.
//!
//! Prediction (before running): ~150–250 fewer cycles after the last stage: 1.005–1.015× d13 at
//! 1 / 16 × 4096² (84% → ~85% of the copy), the same rate at 4096×14336 unless one warpgroup cannot
//! keep up with a stage every ~165 ns (then slower there).
//!
//! Measured (H100, `results/2026-11-26-h100-session24/call7`, each against d13 in the same call, two
//! rounds): **the fixed cost fell, the 4096² time barely**: 1×4096×64 4.78 → 4.48 µs (cuBLAS 4.7;
//! `ncu`: SM active cycles 1650 per SM, cuBLAS's `nvjet …64x8…` 1670), 1×4096×1024 7.59 → 7.53 µs, but
//! 1×4096² 15.44 → 15.40 µs (84.1–84.4% of the copy), 16×4096² 83.8–84.1%, 8×4096² 83.8–84.2%,
//! 1 / 16 × 4096×14336 95.5–96.3%, 1×4096×16384 96.8–97.0% (d13: the same within 0.3%). One warpgroup
//! keeps up with the stream. So at 4096² what is left after the stream is no longer the epilogue: the
//! first load's latency and the slowest SM's last stage (`ncu`: the busiest SM 22.5 k cycles against
//! 21.9 k on average). d15 moves the first stages' loads ahead of the block barrier and takes d14's
//! place in the entry point.
use super::decode_one_consumer::{Rows16, decode};
use super::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;

/// `C = A · B` (f16) as d13, one consumer warpgroup.
///
/// # Safety
/// Tensor maps of A (M×K f16, box 64 K × `decode_box_rows(m, 16)` rows) and B (K×N f16, box 64 N × 64 K),
/// both `SWIZZLE_128B`; `g_c` of m·n f16; 256 threads, `D14_DYN_SMEM` bytes; a 1-D grid of at most
/// ⌈m/16⌉·⌈n/64⌉ CTAs; launched with or without programmatic stream serialization.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v14(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<F16, Rows16, false, 0>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// [`hgemm_decode_v14`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v14`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v14_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16, Rows16, false, 0>(tmap_a, tmap_b, g_c, m, n, k) }
}

// 256 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v14, 256, 1);
launch_bounds!(hgemm_decode_v14_bf16, 256, 1);
