//! v14 — v12 with 64×128 block tiles and 128 threads: the tiles of a few-row or few-tile GEMM are all
//! rows that exist, and three blocks fit on an SM.
//!
//! Change from v12: the same wide-K loop (`wide_k_loop::block_tile_as` with `ROWS = 64`): the first four
//! warps of v9's warp tiling (each 32×64, 8×8 outputs per thread), A's transposed stage `16 × 64` with
//! stride 68 (`layout::sgemm::a_tile_t_wide_rows`: ≡ 4 mod 32 like 132, so the same banks), B's stage
//! unchanged (16×128, now 4 float4 loads per thread). Grid `(⌈N/128⌉, ⌈M/64⌉ · splits)`, K split so
//! that about three blocks per SM run (`layout::sgemm::V14_SPLIT`), sums added into a zeroed C as v12.
//!
//! Why: v12 at M = 64 computes 128-row tiles of which half are past M (51% of cuBLAS on an H100), and
//! runs one 256-thread block per SM (167 registers: 8 warps). Here M = 64 wastes nothing and an SM holds
//! three 128-thread blocks (12 warps).
//! Predicted (H100): 64×4096² ~1.6× v12 (≈ 80–85% of cuBLAS); 128–256 × 4096², 127×8191×1024, 1000³
//! 1.05–1.15× v12 (more warps per SM); 2048³ and above: below v11 (v11 stays).
//! Measured (`results/2026-11-23-h100-session10/call3-v14`): 64×4096² **1.67× v12 (51 → 85%)**, 128 /
//! 256 / 512 × 4096² 75 → 86%, 78 → 90%, 82 → 93%, 48×4096² 83% (v13 66%); but 127×8191×1024 72%
//! (v12 72%), 1000³ 71% (v12 73%), 1024³ 87% (89%): there every block ran the predicated loop.
//!
//! Second change (`Interior::K_TAIL`): a tile inside M and N with K a multiple of 4 but not of 16 (K =
//! 1000) ran every load predicated, because the K range ends off a 16-k stage; now only that last
//! stage is predicated. Predicted: 1000³ 71% → ≈ 85% (1024³, all unpredicated, has 87%). Measured
//! (`call4-k-tail`): no change, 71 → 73% — 1000³ takes as long as 1024³ (16×8 tiles either way): the
//! cost is tile quantisation, not the predicates. Kept: correct, and it leaves only one stage predicated.
use super::wide_k_loop::{Epi, LoopSelect, split_k_tile};
use crate::launch_bounds::launch_bounds;
use layout::sgemm::V14_ROWS as ROWS;

/// `C = A · B` (row-major), 64×128 tiles, K split into `grid_dim_y / ⌈M/64⌉` ranges of `k_split`.
/// The body (`wide_k_loop::split_k_tile`, shared with v15) picks the loop per block: `Interior::YES`,
/// `K_TAIL` (inside M and N, K off 16) or predicated, storing (one split) or adding into C.
///
/// # Safety
/// As `sgemm_v12`, with 128 threads, `2 · (16·68 + 16·128) · 4` bytes of dynamic shared memory and grid
/// `(⌈N/128⌉, ⌈M/64⌉ · splits)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v14(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (split_k_tile's contract for ROWS = 64: 128 threads, the shared memory above;
    // its sixth parameter is the float4s each thread fetches per stage, 2 of A + 4 of B).
    unsafe { split_k_tile::<ROWS, 6, { LoopSelect::PerTile }, { Epi::ADD }>(a, b, c, m, n, k, k_split) }
}

// Three blocks of 128 threads per SM: at most 168 registers (v12 uncapped used 155–167).
launch_bounds!(sgemm_v14, 128, 3);
