#![cfg(lab_sm90)]
//! Decode step d18 — d15 with **stage 0's loads issued before the rest of the ring exists**: thread 0
//! initializes stage 0's full barrier alone, fences it, issues stage 0, and only then initializes the
//! other 23 barriers (no tensor-map prefetch) and issues stages 1 .. 11.
//!
//! Why: in a decode launch the first weight box's DRAM latency is on the critical path (d15's lesson:
//! moving the first loads ahead of the block barrier was worth 0.1–0.2 µs). In d15 thread 0 still
//! prefetches both tensor maps and initializes all 24 barriers, then fences, before the first load:
//! a few hundred cycles with no byte in flight. `ncu` puts d15 at 1×4096² at 15.6 µs, ~0.1 µs from
//! the 85% of a copy of the weights.
//!
//! Diff from d15: `decode::<_, Rows16, true, 0, true>` — the body's `LEAN` (`decode_one_consumer`),
//! which passes `warp_specialized!` `init: false` and does the two halves itself
//! (`Ring::init_first_full`, `Ring::init_rest`).
//!
//! Prediction (before running): 0.05–0.15 µs less per launch at every K: 1.003–1.01× d15 at 1 / 16 ×
//! 4096² (84.5% → ~85–85.3% of the copy), ≤ 0.3% at 4096×14336.
use super::decode_one_consumer::{Rows16, decode};
use super::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;

/// `C = A · B` (f16) as d15, stage 0 issued right after its own barrier's initialization.
///
/// # Safety
/// As `hgemm_decode_v14` (256 threads, `D14_DYN_SMEM` bytes).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v18(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<F16, Rows16, true, 0, true>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// [`hgemm_decode_v18`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v18`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v18_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16, Rows16, true, 0, true>(tmap_a, tmap_b, g_c, m, n, k) }
}

// 256 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v18, 256, 1);
launch_bounds!(hgemm_decode_v18_bf16, 256, 1);
