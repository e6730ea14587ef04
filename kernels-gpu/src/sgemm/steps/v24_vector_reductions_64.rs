#![cfg(lab_sm90)]
//! v24 — v21 (64×128 tiles, overlapped zeroing) with v23's **vector reductions**: the split-K adds
//! as `red.global.add.v4.f32`, a quarter of the L2 atomic operations (`wide_k_loop::Epi::WAIT_ADD_V4`).
//!
//! Why: v23's question on v21's tiles, where the reductions per block are twice v22's — and the test
//! of the reading in v23's doc: if the 2 M scalar reductions are what made v21 split in two 37% slower
//! at 1024³ (85 against 62 µs), v24 split in two runs near the unsplit time.
//!
//! Prediction (before running): 64 / 128 × 4096² (12 / 6 splits) 1.00–1.03× v21; at 1024³ and 1000³
//! split in two (`KERNEL_LAB_SGEMM_FIXED_SPLIT=2,256`) 1.05–1.25× v21 split the same way, unsplit 1.00×.
//!
//! Measured (H100, `ab`, 8 rounds; `results/2026-11-25-h100-session20/call2-v23-v24-vector-reductions`): with v21's rule **64×4096²
//! 1.193×, 128×4096² 1.079×, 768³ 1.200×**, 1000³ unsplit 1.000×; split in two, 1000³ 1.138× and
//! 1024³ 1.105× v21 split the same way — the reading held. With the adds cheap, deeper splitting pays
//! again once the tiles fill the SMs: under v14's rule `(3, 256)` v24 ran 1000³ at 94.7% of cuBLAS and
//! 1024³ at 104.3% (v21 unsplit: 84.6 / 93.6%), so v24 takes that rule (the descriptor's). Then
//! (`call3-f32-entry-point`): **1000³ 1.117×, 1024³ 1.110×, 127×8192×1024 1.376×, 768³ 1.208×, 48×4096²
//! 1.113×, 256×4096² 1.036×** v21; 1536³ 1.002×, 512×4096² 0.977× (unsplit under both rules). Where N is
//! off 4 the reductions stay scalar and the splits lose (127×8191×1024: 71% against 83% unsplit), so
//! the entry point keeps v21 there.
use super::wide_k_loop::{Epi, LoopSelect, split_k_tile};
use crate::launch_bounds::launch_bounds;
use layout::sgemm::V14_ROWS as ROWS;

/// `C = A · B` (row-major) as v21, its split-K adds as `red.global.add.v4.f32`.
///
/// # Safety
/// As `sgemm_v21`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v24(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (split_k_tile's contract for ROWS = 64 with WAIT_ADD_V4: sm_90, as v21).
    unsafe { split_k_tile::<ROWS, 6, { LoopSelect::PerLaunch }, { Epi::WAIT_ADD_V4 }>(a, b, c, m, n, k, k_split) }
}

// Three blocks of 128 threads per SM, as v21.
launch_bounds!(sgemm_v24, 128, 3);
