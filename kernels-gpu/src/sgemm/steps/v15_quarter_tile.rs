//! v15 — v14 with 32×128 block tiles and 64 threads (2 warps): twice the blocks of v14 for the same
//! shape, six of them per SM.
//!
//! Change from v14: `ROWS = 32` in the shared split-K body (`wide_k_loop::split_k_tile`): the first two
//! warps of v9's warp tiling (each 32×64, 8×8 outputs per thread, as in every step since v7), A's
//! transposed stage `16 × 32` with stride 36 (`layout::sgemm::a_tile_t_wide_rows`: ≡ 4 mod 32 like 68 and
//! 132, so the same banks), B's stage unchanged (16×128, now 8 float4 loads per thread). K split so
//! that about six blocks per SM run, no split shallower than 128 (`layout::sgemm::V15_SPLIT`).
//!
//! Why: the shapes still under 85% of cuBLAS after session 10 have few 64×128 tiles: 32×4096² (v13
//! 73%: its 16-row groups re-read B through L2; v14 would compute half its rows past M), 64–128 ×
//! 4096² (v14 84%: 32–64 tiles, K split 6–12 ways to fill the GPU), 512³ (v13 71%: v14's 32 tiles
//! would fill under half the SMs) and 1000³ (v12 73%). Halving the tile's rows doubles the tiles, so
//! the split rule reaches a full wave (≈ 6 × 132 blocks, the same 12 warps per SM as v14) with half as
//! many splits, i.e. twice as deep K ranges per block and half the atomic adds into C; at M = 32
//! nothing is computed past M. The cost: per FMA a block reads 0.16 bytes from L2 (v14: 0.09, v11:
//! 0.06), and each block's K-loop prologue and epilogue are shared by half the work.
//! Predicted (H100, before running): 32×4096² ~1.3× v13 (≈ 95%; 24 splits of 176); 512³ ~1.2× v13
//! (≈ 85%); 64–128 × 4096² 1.0–1.1× v14; 1000³ 1.0–1.1× v12; 127×8191×1024 ≈ v14 (N is not a multiple
//! of 4 there, so every block runs the predicated element-wise loads of B, in v14 and v15 alike).
//! Measured (H100, held, interleaved with cuBLAS; `results/2026-11-25-h100-session16/call2-sgemm-v15`):
//! **32×4096² 84.6% of cuBLAS** (v13 72.2%: 1.17×), **16×14336×4096 111%** (v13 92%), **512³ 75%** (v13
//! 70%: 1.08×); slower than v14 wherever v14 fills the SMs (48–512 × 4096² 72–79% against 80–97%;
//! 1000³ 67% against v12's 73%; 127×8191×1024 66% against 71%): there the doubled L2 reads per FMA
//! cost more than the deeper K ranges save. Chosen for 16 < M ≤ 32 and where v14 starves (512³).
use super::wide_k_loop::{Epi, LoopSelect, split_k_tile};
use crate::launch_bounds::launch_bounds;
use layout::sgemm::V15_ROWS as ROWS;

/// `C = A · B` (row-major), 32×128 tiles, K split into `grid_dim_y / ⌈M/32⌉` ranges of `k_split`.
///
/// # Safety
/// As `sgemm_v14`, with 64 threads, `2 · (16·36 + 16·128) · 4` bytes of dynamic shared memory and grid
/// `(⌈N/128⌉, ⌈M/32⌉ · splits)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v15(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (split_k_tile's contract for ROWS = 32: 64 threads, the shared memory above;
    // 10 float4s fetched per thread and stage, 2 of A + 8 of B).
    unsafe { split_k_tile::<ROWS, 10, { LoopSelect::PerTile }, { Epi::ADD }>(a, b, c, m, n, k, k_split) }
}

// Six blocks of 64 threads per SM: at most 168 registers, as v14.
launch_bounds!(sgemm_v15, 64, 6);
