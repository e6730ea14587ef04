//! The persistent schedule of the Hopper steps h5 and h6 (introduced by h5, whose file explains it):
//! one CTA per SM walks the C tiles `b, b + grid, …` in the grouped order (`util::grouped`), and one
//! producer thread issues every stage of every tile, its ring position `it` running on across tiles.
use super::tma::{BM, BN_WIDE};
use super::tma_warp_specialized::Ring;
use super::tma_wide_tile::issue_wide_stage;
use crate::prim::tma::TensorMap;
use crate::util::grouped::{GROUP, grouped_block};

/// The tile (row, column) the persistent steps give to position `tile` of a CTA's sequence
/// `b, b + grid, …`: the grouped order of [`crate::util::grouped`] ([`GROUP`] tile rows per group).
#[inline(always)]
pub(crate) fn persistent_tile(tile: u32, tiles_m: u32, tiles_n: u32) -> (u32, u32) {
    grouped_block(tile, tiles_m, tiles_n, GROUP)
}

/// The producer of the persistent wide steps (h5, h6), run by one thread: for each of this CTA's tiles
/// and each K tile, wait until the stage's previous use is released, then issue its loads. `it` runs on
/// across tiles, so stages and phases continue where the previous tile stopped.
///
/// # Safety
/// One thread; the ring (of `WIDE_STAGE_BYTES` stages) initialized by [`Ring::init`]; the consumers
/// walk the same tiles and K tiles and release every stage use (as `tma_wide_tile::consume_wide_tile`
/// does); tensor maps as the kernels' `# Safety`.
#[inline(always)]
pub(super) unsafe fn produce_persistent(ring: Ring, tmap_a: *const TensorMap, tmap_b: *const TensorMap,
                                        tiles_m: u32, tiles_n: u32, k_tiles: u32) {
    use crate::prim::thread::{block_idx_x, grid_dim_x};
    let mut it = 0u32;
    let mut tile = block_idx_x();
    while tile < tiles_m * tiles_n {
        let (tm, tn) = persistent_tile(tile, tiles_m, tiles_n);
        for kt in 0..k_tiles {
            let (s_stage, full, _, _) = ring.at(it);
            // SAFETY: forwarded to the caller; use u − 1 of this stage is released before it is refilled.
            unsafe {
                ring.wait_empty(it);
                issue_wide_stage(s_stage, full, tmap_a, tmap_b, tm * BM, tn * BN_WIDE, kt);
            }
            it += 1;
        }
        tile += grid_dim_x();
    }
}
