//! v16 — v14 with **clamped edge tiles**: a tile that reaches past M or N (or any tile when N is not a
//! multiple of 4) loads its full K stages without predicates, as an interior tile does.
//!
//! Change from v14: `split_k_tile::<64, 6, { LoopSelect::PerTileClampedEdges }>` — a tile that is not inside but has K % 4 == 0 runs
//! `Interior::CLAMP` (`wide_k_loop`): A's rows past M read row M − 1 and B's columns past N read
//! columns inside N (their products land only in rows and columns of C that the guarded epilogue never
//! stores), B as four scalar loads when N % 4 ≠ 0; only the last partial K stage stays predicated. v14
//! ran such tiles through `load4_or_zero`: a bounds test and a branch per float4, element by element
//! wherever a float4 is not wholly inside and aligned — every B load at N = 8191.
//!
//! Why: every block of a split-K grid runs at once, so the kernel takes as long as its slowest block.
//! At 1000³ 23 of v14's 128 tiles (the last tile row and column) are edge tiles, and at 127×8191×1024
//! all of them (N off 4, and the second tile row ends at 127): those are the f32 sweep's two worst
//! shapes (v12/v14 73% and 71% of cuBLAS; 1024³, all interior, 85–88%).
//! Predicted (H100, before running): 1000³ ≈ v14's 1024³ speed per FMA, 1.10–1.15× v14 (≈ 82–85%);
//! 127×8191×1024 1.10–1.20× v14 (B's scalar loads remain: 16 per stage against 4 float4s); shapes with
//! no edge tiles and N % 4 == 0 unchanged (the same interior loop).
//! Measured (H100, `kernel-lab ab`, 8 rounds; `results/2026-11-25-h100-session16/call4-sgemm-v16`):
//! **1000³ 1.004×, 127×8191×1024 1.020× (8/8 rounds), 1024³ 1.003×** v14 — the prediction was wrong: the
//! edge tiles' predicated loads were not what held those shapes (v14 runs 1000³ in 71 µs, 1024³ in
//! 68 µs: per FMA it is as slow at the aligned size; cuBLAS is the one that gets faster at 1000³, 53
//! against 58 µs). Kept: never slower than v14 in that call (head to head with cuBLAS: 48–256 × 4096²
//! 84–89%, as v14), and the entry point takes it where it took v14.
use super::wide_k_loop::{Epi, LoopSelect, split_k_tile};
use crate::launch_bounds::launch_bounds;
use layout::sgemm::V14_ROWS as ROWS;

/// `C = A · B` (row-major) as v14 (64×128 tiles, K split into `grid_dim_y / ⌈M/64⌉` ranges of
/// `k_split`), edge tiles clamped.
///
/// # Safety
/// As `sgemm_v14`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v16(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (split_k_tile's contract for ROWS = 64, as v14; CLAMP only with K % 4 == 0,
    // which split_k_tile checks).
    unsafe { split_k_tile::<ROWS, 6, { LoopSelect::PerTileClampedEdges }, { Epi::ADD }>(a, b, c, m, n, k, k_split) }
}

// Three blocks of 128 threads per SM, as v14.
launch_bounds!(sgemm_v16, 128, 3);
