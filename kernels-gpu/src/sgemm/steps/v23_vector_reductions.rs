#![cfg(lab_sm90)]
//! v23 — v22 (32×128 tiles, overlapped zeroing) with its split-K adds as **vector reductions**: each
//! thread's four consecutive sums go to C in one `red.global.add.v4.f32` (sm_90) where v22 issued four
//! `red.global.add.f32` (`wide_k_loop::Epi::WAIT_ADD_V4`; four scalar ones where N is off 4 or the four
//! columns cross it).
//!
//! Why: every block of a split launch ends with the same burst of reductions into C — 64 per thread,
//! all blocks at about the same time since one wave holds the whole grid — and L2 serves each as one
//! atomic operation. At 1024³, v21 unsplit ran 62 µs and split in two (rule 2,256: 256 blocks, two per
//! SM) 85 µs, while v22 unsplit with the same 256 blocks ran 72 µs (`results/2026-11-25-h100-session20/
//! call1`): two blocks per SM are not what costs there, and the 2 M scalar reductions are a candidate.
//! Against that, `ncu` of v19 at 64×4096² gave 8 and 12 splits the same 73 µs (session 19, `call8`).
//!
//! Prediction (before running): 512³ (4 splits: 1 M scalar → 262 k vector reductions) 1.00–1.05× v22,
//! 32×4096² (24 splits) 1.00–1.04×; unsplit shapes 1.00×.
//!
//! Measured (H100, `ab`, 8 rounds; `results/2026-11-25-h100-session20/call2-v23-v24-vector-reductions`, `call3-f32-entry-point`):
//! **512³ 1.316×, 32×4096² 1.264×, 17×4096² 1.201×, 384³ 1.111×, 24×2048×1024 1.101×, 32×14336×4096
//! 1.062×** (8/8 rounds each); 300×300×200 (unsplit) 1.000×. The prediction was wrong in size: the
//! scalar reductions, not the memset, were most of what split launches lost (`ncu`'s equal 8- and
//! 12-split times in session 19 had hidden it). In the f32 sweep 512³ is now 104.7% of cuBLAS (79.4%
//! with v22) and 32×4096² 112.1% (87.7%).
use super::wide_k_loop::{Epi, LoopSelect, split_k_tile};
use crate::launch_bounds::launch_bounds;
use layout::sgemm::V15_ROWS as ROWS;

/// `C = A · B` (row-major) as v22, its split-K adds as `red.global.add.v4.f32`.
///
/// # Safety
/// As `sgemm_v22`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v23(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (split_k_tile's contract for ROWS = 32 with WAIT_ADD_V4: sm_90, as v22).
    unsafe { split_k_tile::<ROWS, 10, { LoopSelect::PerTile }, { Epi::WAIT_ADD_V4 }>(a, b, c, m, n, k, k_split) }
}

// Six blocks of 64 threads per SM, as v22.
launch_bounds!(sgemm_v23, 64, 6);
