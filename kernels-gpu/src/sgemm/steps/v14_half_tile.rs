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
use super::frag_map::WarpTiled;
use super::wide_k_loop::{Interior, block_tile_as};
use crate::launch_bounds::launch_bounds;
use crate::prim::thread::{block_idx_x, block_idx_y, grid_dim_x, grid_dim_y};
use crate::util::grouped::{GROUP, grouped_block};
use layout::sgemm::{BK_WIDE, BN, V14_ROWS as ROWS};

/// `C = A · B` (row-major), 64×128 tiles, K split into `grid_dim_y / ⌈M/64⌉` ranges of `k_split`.
///
/// # Safety
/// As `sgemm_v12`, with 128 threads, `2 · (16·68 + 16·128) · 4` bytes of dynamic shared memory and grid
/// `(⌈N/128⌉, ⌈M/64⌉ · splits)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v14(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    let grid_n = grid_dim_x();
    let tiles_m = m.div_ceil(ROWS).max(1); // >= 1: the divisions below cannot trap
    let (ty, split) = (block_idx_y() % tiles_m, block_idx_y() / tiles_m);
    let splits = grid_dim_y() / tiles_m;
    let (bm, bn) = grouped_block(ty * grid_n + block_idx_x(), tiles_m, grid_n, GROUP);
    let k_begin = split * k_split;
    let k_end = if k - k_begin < k_split { k } else { k_begin + k_split };
    let inside = bm * ROWS + ROWS <= m && bn * BN + BN <= n && n % 4 == 0;
    let mode = match (inside, k % BK_WIDE == 0 && k_end % BK_WIDE == 0, k % 4 == 0) {
        (true, true, _) => Interior::YES,
        (true, false, true) => Interior::K_TAIL,
        _ => Interior::NO,
    };
    // SAFETY: as v12 with 64-row tiles (block_tile_as's contract for ROWS = 64: 128 threads, the shared
    // memory above); `YES` and `K_TAIL` only when the tests above give what they need; with several
    // splits every block only adds to C.
    unsafe {
        match (mode, splits > 1) {
            (Interior::YES, false) => block_tile_as::<WarpTiled, { Interior::YES }, false, ROWS, 6>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::K_TAIL, false) => block_tile_as::<WarpTiled, { Interior::K_TAIL }, false, ROWS, 6>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (_, false) => block_tile_as::<WarpTiled, { Interior::NO }, false, ROWS, 6>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::YES, true) => block_tile_as::<WarpTiled, { Interior::YES }, true, ROWS, 6>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::K_TAIL, true) => block_tile_as::<WarpTiled, { Interior::K_TAIL }, true, ROWS, 6>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (_, true) => block_tile_as::<WarpTiled, { Interior::NO }, true, ROWS, 6>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
        }
    }
}

// Three blocks of 128 threads per SM: at most 168 registers (v12 uncapped used 155–167).
launch_bounds!(sgemm_v14, 128, 3);
