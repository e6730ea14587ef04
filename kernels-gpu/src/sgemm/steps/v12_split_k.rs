//! v12 — v11 with K split across blocks when the 128×128 tiles are fewer than the GPU holds.
//!
//! Change from v11: the grid's y dimension carries `splits` copies of the tile rows; block `(x, y)`
//! computes tile `y % tiles_m` (grouped as v8) over the K range `split · k_split ..` with
//! `split = y / tiles_m`, and adds its 128×128 sums into C with `red.global.add.f32` (the host zeroes C
//! first); with one split it stores them as v11 does. `k_split` is a multiple of 16 chosen by the host
//! (`layout::sgemm::split_k_tiles` with `V12_SPLIT`: about one block per SM, each split at least
//! 256 deep).
//!
//! Why: at 1000³ v11 has 64 tiles for 132 SMs × 2 block slots and ran at 53% of cuBLAS (H200); at
//! 127×8191×1024, one row of 64 tiles: 49%. Predicted (first version, two blocks per SM): those two
//! split 4 ways → 256 blocks, ~1.6–1.8× v11 there (≈ 85–90% of cuBLAS); identical to v11 where the
//! tiles fill the GPU. Measured: 1.24× / 1.36×; then ptxas's spills at 128 registers forced one block
//! per SM, which with one block per SM in the split rule gives 1000³ 84% and 127×8191×1024 79% of
//! cuBLAS — and costs the large sizes (71–78%: v11 stays the large-size kernel).
use super::frag_map::WarpTiled;
use super::wide_k_loop::{Epi, Interior, block_tile_as};
use crate::launch_bounds::launch_bounds;
use crate::prim::thread::{block_idx_x, block_idx_y, grid_dim_x, grid_dim_y};
use crate::util::grouped::{GROUP, grouped_block};
use layout::sgemm::{BK_WIDE, BM, BN};

/// `C = A · B` (row-major), K split into `grid_dim_y / ⌈M/128⌉` ranges of `k_split`.
///
/// # Safety
/// As `sgemm_v11`, with grid `(⌈N/128⌉, ⌈M/128⌉ · splits)`, `splits = ⌈K / k_split⌉`, `k_split` a
/// positive multiple of 16; when `splits > 1`, C is zero at launch and touched by nothing else.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v12(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    let grid_n = grid_dim_x();
    let tiles_m = m.div_ceil(BM).max(1); // >= 1: the divisions below cannot trap
    let (ty, split) = (block_idx_y() % tiles_m, block_idx_y() / tiles_m);
    let splits = grid_dim_y() / tiles_m;
    let (bm, bn) = grouped_block(ty * grid_n + block_idx_x(), tiles_m, grid_n, GROUP);
    let k_begin = split * k_split;
    let k_end = if k - k_begin < k_split { k } else { k_begin + k_split };
    let interior = bm * BM + BM <= m && bn * BN + BN <= n && k % BK_WIDE == 0 && k_end % BK_WIDE == 0 && n % 4 == 0;
    // SAFETY: as v11 over the K range [k_begin, k_end) (k_begin a multiple of 16, k_end <= K);
    // `Interior::YES` only when the test above holds; with several splits every block only adds to C.
    unsafe {
        match (interior, splits > 1) {
            (true, false) => block_tile_as::<WarpTiled, { Interior::YES }, { Epi::STORE }, BM, 4>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (false, false) => block_tile_as::<WarpTiled, { Interior::NO }, { Epi::STORE }, BM, 4>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (true, true) => block_tile_as::<WarpTiled, { Interior::YES }, { Epi::ADD }, BM, 4>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (false, true) => block_tile_as::<WarpTiled, { Interior::NO }, { Epi::ADD }, BM, 4>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
        }
    }
}

// One block per SM (v11: two): capped at 128 registers, ptxas spilled the add epilogue (8–48 bytes on
// sm_80/sm_90; the CI's ptxas test caught it); uncapped it uses 155–167 registers and spills nothing.
launch_bounds!(sgemm_v12, 256, 1);
