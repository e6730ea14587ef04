#![cfg(lab_sm90)]
//! Decode step d15 — d14 with its **first stages issued by thread 0 right after it initializes the
//! ring**, before the block barrier, instead of by the producer after it.
//!
//! Why: in a decode launch the first weight box's DRAM latency is on the critical path, and d14's
//! producer issues it only after the block barrier, `setmaxnreg.dec` and its first tile's coordinates
//! (a division): ~200–300 cycles in which no weight byte is in flight. d14 reads 1×4096² at 84.1–84.4%
//! of a copy of the weights; 85% needs ~0.15 µs less.
//!
//! Diff from d14: d14's body (`decode_one_consumer::decode`) with `EARLY`, which passes
//! `warp_specialized! { consumers: 1, registers: (40, 232), first: { … }; … }` a non-empty block. In that
//! block thread 0 (the producer thread) computes its first tile and issues its first `min(STAGES,
//! K tiles)` stages; the producer loop then starts after them. Sound because the same thread
//! initialized the barriers and fenced the initialization for the async proxy before issuing, and
//! the consumers touch the barriers only after the block barrier.
//!
//! Prediction (before running): 0.1–0.15 µs less per launch at every K: 1 / 16 × 4096² ~1.007–1.01× d14
//! (84.3% → ~85% of the copy); nothing else changes.
//!
//! Measured (H100, `results/2026-11-26-h100-session24/call8`, against d14 in the same call, two rounds
//! each): 1×4096² 15.52–15.57 → **15.33–15.36 µs: 84.9–85.0% of the copy** (d14 83.9–84.0%), 16×4096²
//! 84.1–84.6% (83.5–83.6%), 8×4096² 84.2% (84.2%), 1 / 16 × 4096×14336 96.2–97.0% (95.6–96.2%), 1×4096×64
//! 4.48–4.59 µs (4.59–4.67); bf16 84.9 / 84.0 / 96.7%. As predicted at M = 1 (1.012×), less at M = 8–16.
//! memcheck / synccheck / racecheck 0 / 0 / 0 (racecheck's one report in that run is inside cuBLAS's
//! `nvjet` kernel). The entry point's step for M ≤ 16 where d4's tiles fit one wave (`gemm::d15_fits`).
use super::decode_one_consumer::{Rows16, decode};
use super::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;

/// `C = A · B` (f16) as d14, the first stages issued before the block barrier.
///
/// # Safety
/// As `hgemm_decode_v14` (256 threads, `D14_DYN_SMEM` bytes).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v15(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<F16, Rows16, true, 0>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// [`hgemm_decode_v15`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v15`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v15_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16, Rows16, true, 0>(tmap_a, tmap_b, g_c, m, n, k) }
}

// 256 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v15, 256, 1);
launch_bounds!(hgemm_decode_v15_bf16, 256, 1);
