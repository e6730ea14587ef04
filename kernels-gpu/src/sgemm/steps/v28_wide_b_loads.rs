#![cfg(lab_sm90)]
//! v28 — v25 with **B's rows read in the widest pieces their alignment allows** where N is off 4
//! (`wide_k_loop::Interior::CLAMP_WIDE`, `elementwise::load4w`): a `.v4` where the row's float4 is
//! 16-byte aligned, two `.v2` where it is 8-byte aligned, else a scalar, a `.v2` and a scalar — the
//! loads of v25's reductions. v16's clamped loop read every float4 of B as four scalar `ld.global`
//! (each column clamped into N) whenever N is off 4; only the last column group of N still does.
//!
//! Why: 127×8191×1024 is the one f32 sweep shape under 85% of cuBLAS (83%). Every step measured there
//! takes 69–71 µs (v21 unsplit, v25 and v27 split), against 57 µs for v24 at 127×8192×1024
//! (`results/2026-11-25-h100-session21/call3-v27`): the odd pitch costs ~20% whatever the tile or the
//! split, and what the odd pitch changes in the loop is B's loads — 16 scalar loads (and 16 clamps)
//! per thread and stage in place of 4 float4s, the A loads and the FMAs unchanged. With N odd the rows
//! of B cycle through the four alignment classes (`(k·N) % 4`), so v28 issues 1, 2, 3, 3 loads per
//! float4: 2.25 on average. One warp loads one row per instruction, so the class is warp-uniform: the
//! branch does not diverge.
//!
//! Prediction (before running): if B's load instructions are the cost, 127×8191×1024 from 69–71 µs
//! to ~62–64 µs: **1.08–1.12× v25** (≈ 90–93% of cuBLAS); other N-off-4 shapes 1.03–1.10× v25; N % 4
//! == 0 unchanged (1.00×: the loop is v25's).
use super::wide_k_loop::{Epi, Interior, split_k_tile};
use crate::launch_bounds::launch_bounds;
use layout::sgemm::V14_ROWS as ROWS;

/// `C = A · B` (row-major) as v25, B's rows read in the widest aligned pieces where N is off 4.
///
/// # Safety
/// As `sgemm_v25`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v28(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (split_k_tile's contract for ROWS = 64 with CLAMP_WIDE, which needs what CLAMP
    // needs, and WAIT_ADD_WIDE: sm_90, as v25).
    unsafe { split_k_tile::<ROWS, 6, { Interior::CLAMP_WIDE }, true, { Epi::WAIT_ADD_WIDE }>(a, b, c, m, n, k, k_split) }
}

// Three blocks of 128 threads per SM, as v25.
launch_bounds!(sgemm_v28, 128, 3);
