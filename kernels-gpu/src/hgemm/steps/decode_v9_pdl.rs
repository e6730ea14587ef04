#![cfg(lab_sm90)]
//! Decode step d9 — d4 with **programmatic dependent launch** (PDL): each CTA first tells the
//! scheduler that the next grid on the stream may start (`griddepcontrol.launch_dependents`), then
//! waits for the previous grid to complete (`griddepcontrol.wait`) before it touches any memory. The
//! host launches it with `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION` (the runtime does so
//! for every kernel whose PTX executes `griddepcontrol.wait`, the wait that makes an early start safe).
//!
//! Why: at 1×4096×4096 d4 holds 5.9 µs of fixed cost per launch around 3.17 TB/s of streaming, and
//! `ncu` shows ~2.1 µs of every launch with no SM active, for d4 and cuBLAS alike
//! (`results/2026-11-25-h100-session18/call1-decode-probe`); 85% of the copy bandwidth needs ~15.2 µs
//! held where d4 takes ~15.8. A decode step is a chain of small kernels: with PDL the next kernel's
//! CTAs are dispatched onto the SMs this grid leaves free (64 CTAs on 132 SMs at N = 4096) while it
//! streams, and its launch latency overlaps this grid's tail instead of following it.
//!
//! What it changes and what it does not: back to back (the suite's timing, and a model's chain of
//! PDL-aware kernels), each launch's dispatch overlaps the previous one's end; a launch after a kernel
//! that is not PDL-aware (or the first) costs what d4's does. The kernel body is d4's, unchanged.
//!
//! Prediction (before running): back to back at 1 / 16 × 4096² ~1.5–2 µs less per launch than d4
//! (≈ 1.10–1.14×: 78–79% → ~87–90% of the copy bandwidth), 1.03–1.06× at 4096×14336 and larger.
use super::decode_whole_k::{Rows64, decode};
use super::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;
use layout::hopper::tma_hgemm::D4_STAGES as STAGES;

/// [`super::decode_v4_whole_k::hgemm_decode_v4`] with programmatic dependent launch.
///
/// # Safety
/// As `hgemm_decode_v4`; launched with or without programmatic stream serialization.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v9(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (d4's body behind the PDL wait).
    unsafe { decode::<F16, Rows64, true, STAGES>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// [`hgemm_decode_v9`] on bf16.
///
/// # Safety
/// As `hgemm_decode_v4_bf16`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v9_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16, Rows64, true, STAGES>(tmap_a, tmap_b, g_c, m, n, k) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v9, 384, 1);
launch_bounds!(hgemm_decode_v9_bf16, 384, 1);
