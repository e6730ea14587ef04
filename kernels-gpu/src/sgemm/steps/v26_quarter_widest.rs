#![cfg(lab_sm90)]
//! v26 — v22 (32×128 tiles, overlapped zeroing) with **v25's widest reductions**: each group of four
//! split-K sums as one `.v4`, two `.v2`, or a scalar, a `.v2` and a scalar, by its element's alignment
//! (`wide_k_loop::Epi::WAIT_ADD_WIDE`). v23 is v22 with `.v4` alone, which needs N % 4 == 0; v26 is
//! what v15's shapes with N off 4 get on Hopper.
//!
//! Why: v25 did this for v19's tiles and gained 1.02–1.27× over scalar adds at five of six shapes with
//! N off 4 (`results/2026-11-25-h100-session20/call4-v25-widest-reductions`); v15's region (M ≤ 32, or
//! too few 64-row tiles) splits K deepest of all — 24 splits at 32×4096² — so its adds weigh the most.
//!
//! Prediction (before running): 1.05–1.20× v22 at 17 / 32 × 4095×4096 and 24×2047×1024 (as v23 over
//! v22 at N % 4 == 0, 1.10–1.26×, less the 2.25 operations per group that odd rows need).
//!
//! Measured (H100, `ab`, 8 rounds, 8/8 each; `results/2026-11-25-h100-session20/call9-v26`): **32×4097×4096 1.221×, 32×4095×4096
//! 1.200×, 512×511×512 1.156×, 17×4095×4096 1.110×, 24×2047×1024 1.087×** v22 — the prediction held
//! (slightly above at M = 32). Against v23 where N % 4 == 0: 1.017× at 32×4096², 0.985× at 512³.
//! The entry point's step on Hopper for v15's shapes with N off 4 (v22 before).
use super::wide_k_loop::{Epi, LoopSelect, split_k_tile};
use crate::launch_bounds::launch_bounds;
use layout::sgemm::V15_ROWS as ROWS;

/// `C = A · B` (row-major) as v22, its split-K adds as wide as each element's alignment allows.
///
/// # Safety
/// As `sgemm_v22`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v26(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (split_k_tile's contract for ROWS = 32 with WAIT_ADD_WIDE: sm_90, as v22).
    unsafe { split_k_tile::<ROWS, 10, { LoopSelect::PerTile }, { Epi::WAIT_ADD_WIDE }>(a, b, c, m, n, k, k_split) }
}

// Six blocks of 64 threads per SM, as v22.
launch_bounds!(sgemm_v26, 64, 6);
