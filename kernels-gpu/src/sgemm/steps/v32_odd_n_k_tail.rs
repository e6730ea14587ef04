#![cfg(lab_sm90)]
//! SGEMM step v32 — v31 for **K off 16 as well**: N off 4 with K % 4 == 0 but K (or the split's end)
//! not a multiple of 16 runs v31's loop with its last, partial stage predicated instead of falling back
//! to the element-wise `CLAMP` loop.
//!
//! Why: v29–v31 need K and the K range's end to be multiples of 16 (every stage full). With N off 4 and
//! K % 16 ≠ 0 (1000×999×1000) every tile still runs `Interior::CLAMP`: each of B's elements clamped and
//! addressed alone, stored through registers — 78.4% of `cublasSgemm` at 1000×999×1000
//! (`results/2026-11-26-h100-session25/call5`) while v24 runs the aligned 1000³ at 94–95%.
//!
//! Diff from v31: `Interior::YES_ODD_N_ASYNC_TAIL` (`wide_k_loop.rs`). Full stages as v31's (with K off
//! 16 they end at or below K − 4, so with N ≥ 32 their unclamped columns stay inside B). The range's
//! last, partial stage: A's float4s predicated (`load4_or_zero`), B's rows past the range's end
//! zero-filled by `cp.async` with no source bytes (nothing read), its columns clamped into N. Launches
//! with K and the range end multiples of 16 run v31's loop itself.
//!
//! Prediction (before running): **1.12–1.18× v31 at 1000×999×1000** (78% → ~88–92% of cuBLAS),
//! similar at 130×4097×1000; 1.00× where K % 16 == 0 (the same loop).
//!
//! Measured (H100, `kernel-lab ab v31 v32`, 8 rounds): the first form ran its tail loop on every launch
//! (`results/2026-11-26-h100-session25/call8`): 1.063× at 1000×999×1000 but **0.967–0.979× where K % 16
//! == 0** (2000×1999×2000, 127×8191×1024: the per-stage tail tests). With those launches on v31's loop
//! (`call9`): **1.068× at 1000×999×1000** (78.4 → 83.7% of cuBLAS), **1.034× at 130×4097×1000**,
//! **1.085× at 255×8191×1000** (8/8 each), 0.994× at 64×4095×4100 (0/8); where K % 16 == 0 still
//! 0.991× at 127×8191×1024 (v32's copy of v31's loop is register-allocated differently: 164 against
//! 163) and 1.018× at 2000×1999×2000. Below the prediction: the predicated last stage is one of 63 at
//! K = 1000, and the full stages were already v31's; the gain is the loop itself replacing `CLAMP`'s.
//! memcheck (eight shapes, K = 8 … 4100), racecheck, initcheck: 0. The library takes v32 for N off 4
//! with K off 16 and keeps v31 where K % 16 == 0 (`sgemm::hopper_form`).
use super::wide_k_loop::{Epi, Interior, split_k_tile_odd_n};
use crate::launch_bounds::launch_bounds;
use layout::sgemm::V14_ROWS as ROWS;

/// `C = A · B` (row-major) as v31, launches with N off 4 and K off 16 on its loop with a predicated tail.
///
/// # Safety
/// As `sgemm_v25`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v32(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (split_k_tile_odd_n's contract: split_k_tile's for ROWS = 64 with WAIT_ADD_WIDE, sm_90).
    unsafe { split_k_tile_odd_n::<ROWS, 6, { Epi::WAIT_ADD_WIDE }, { Interior::YES_ODD_N_ASYNC_TAIL }>(a, b, c, m, n, k, k_split) }
}

// Three blocks of 128 threads per SM, as v25.
launch_bounds!(sgemm_v32, 128, 3);
