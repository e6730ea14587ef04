#![cfg(lab_sm90)]
//! SGEMM step v30 — v29 with **B's scalar loads taken across the warp**: a thread's four elements are
//! columns `lane`, `lane + 32`, `lane + 64`, `lane + 96` of the tile, not the four of its own float4.
//!
//! Why: v29 (N off 4) keeps the aligned loop's float4 mapping and splits each float4 into four scalar
//! loads, `col + 0 … col + 3`. A warp's load `j` then picks one word out of every 16 bytes of a
//! 512-byte span: ~5 L1 lines for 128 useful bytes, and the four loads touch the same lines four times
//! (L1 hit rate 60%, `results/2026-11-26-h100-session24/call15`). Those requests share the L1 /
//! shared-memory pipeline with the fragments' `ld.shared`, and v29's FFMAs stall on short scoreboard
//! 4.5× as often as v24's on the aligned shape. Across the warp, load `j` is 32 consecutive words —
//! 128 bytes, two lines (B's rows are off 16 bytes) — so B's global requests per stage fall from ~20
//! lines per four loads to ~8. The shared stores become four `st.shared.f32` per float4 (a warp's 32
//! consecutive words: one wavefront each, as the float4 store's four).
//!
//! Diff from v29: `Interior::YES_ODD_N_LANES` in place of `YES_ODD_N` (`wide_k_loop.rs`: the fetch
//! and the store of B in the lane mapping; the last row's stage clamps each column into N in it).
//!
//! Prediction (before running): short-scoreboard stalls toward v24's; **1.05–1.10× v29 at
//! 127×8191×1024** (83 → 87–91% of cuBLAS), 1.02–1.06× at the other N-off-4 shapes; the aligned
//! launches run v25's loop, unchanged (1.00×).
//!
//! Measured (H100, `results/2026-11-26-h100-session25/call1`, `kernel-lab ab`, 8 rounds): **1.021× at
//! 127×8191×1024** (8/8 rounds; 84.7% and 86.1% of cuBLAS in two runs of the `gemm` family), 1.019× at
//! 130×4097×1024, 1.012× at 64×4095×4096, **1.081× at 255×8191×1024**, 1.024× at 127×1031×1024 (8/8
//! each), 0.998× at 1000×999×1000 (0/8). Smaller than predicted at 127 rows: `ncu` still counts 23% of
//! the sectors as excess (a 128-byte run off 16 bytes spans five sectors, not four). 0.975× at
//! 127×8192×1024, where both run v25's aligned loop — the same source, scheduled differently by ptxas
//! (163 / 164 registers); the library takes v24 there. memcheck (five shapes) and initcheck report 0.
use super::wide_k_loop::{Epi, Interior, split_k_tile_odd_n};
use crate::launch_bounds::launch_bounds;
use layout::sgemm::V14_ROWS as ROWS;

/// `C = A · B` (row-major) as v29, launches with N off 4 on the lane-mapped scalar loop.
///
/// # Safety
/// As `sgemm_v25`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v30(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (split_k_tile_odd_n's contract: split_k_tile's for ROWS = 64 with WAIT_ADD_WIDE, sm_90).
    unsafe { split_k_tile_odd_n::<ROWS, 6, { Epi::WAIT_ADD_WIDE }, { Interior::YES_ODD_N_LANES }>(a, b, c, m, n, k, k_split) }
}

// Three blocks of 128 threads per SM, as v25.
launch_bounds!(sgemm_v30, 128, 3);
