//! v8 — a block order that reuses L2.
//!
//! Change from v7: in launch order the blocks sweep a whole row of C tiles before the next row, so at
//! 8192³ every block row re-streams all of B (256 MiB, far more than the 60 MiB L2) from DRAM. Here
//! launch index `pid` is remapped by `layout::sgemm::grouped_block` so that 8 block rows sweep the
//! columns together: each 128-column panel of B is fetched once per 8 block rows instead of once per
//! row. Predicted: ~1.05× at 8192³ (B's DRAM traffic drops 8×: ~4 ms of v7's ~24 ms), nothing at 1024³.
use super::frag_map::Strided4;
use super::wide_k_loop::block_tile;
use crate::launch_bounds::launch_bounds;
use crate::prim::thread::{block_idx_x, block_idx_y, grid_dim_x};
use crate::util::grouped::{GROUP, grouped_block};

/// `C = A · B` (row-major).
///
/// # Safety
/// As `sgemm_v7`; grid `(ceil(N / 128), ceil(M / 128))`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v8(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    let grid_n = grid_dim_x();
    let grid_m = m.div_ceil(layout::sgemm::BM);
    let (bm, bn) = grouped_block(block_idx_y() * grid_n + block_idx_x(), grid_m, grid_n, GROUP);
    // SAFETY: `grouped_block` is a bijection onto the grid, so (bm, bn) is a valid tile, each once.
    unsafe { block_tile::<Strided4>(a, b, c, m, n, k, bm, bn) }
}

// As v7: at most 128 registers, two blocks per SM.
launch_bounds!(sgemm_v8, 256, 2);
