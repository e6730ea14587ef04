#![cfg(lab_sm90)]
//! Hopper step h5: h4 made **persistent**: one CTA per SM loops over the C tiles in grouped order
//! (`layout::sgemm::grouped_block`, 8 tile rows per group), with the stage ring and its phases running on
//! across tiles.
//!
//! Diff from h4:
//! * grid = `min(tiles, SMs)`; CTA `b` takes tiles `b, b + grid, …`, each mapped through the grouped
//!   order so the CTAs running together share A rows and B columns in L2;
//! * the producer and consumers count K tiles with one running index `it` across C tiles, so stage
//!   `it % STAGES` and phase `it / STAGES` continue where the previous tile stopped — the producer loads
//!   the next tile's first stages **while the consumers run the previous tile's epilogue**;
//! * every stage use is now released (the last one of a tile after `wait_group 0`), since the producer
//!   will wait for it on a later tile.
//!
//! The producer over all of a CTA's tiles and the tile order are `tma_persistent` (h6 reuses them); the
//! consumers' tile loop is below.
//!
//! Prediction: hides the epilogue and the launch tail, better L2 reuse: ~1.05–1.15× h4.
//! Measured (H200): 1.04–1.07× h4 (98% of cuBLAS at 8192³); the least stable step at 4096³ (84–96%).
use super::tma::{BK, BM, BN_WIDE as BN, WIDE_STAGE_BYTES as STAGE_BYTES};
use super::tma_persistent::{persistent_tile, produce_persistent};
use super::tma_warp_specialized::warp_specialized;
use super::elem::F16;
use super::tma_wide_tile::{consume_wide_tile, store_wide};
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    thread::{block_idx_x, grid_dim_x},
    tma::TensorMap,
};

/// Stages in the ring.
pub const STAGES: u32 = layout::hopper::tma_hgemm::H5_STAGES;

/// `C = A · B` as [`super::tma_v4_wide::hgemm_tma_v4`], persistent over the C tiles.
///
/// # Safety
/// As h4, but a 1-D grid of at most `⌈M/128⌉ · ⌈N/256⌉` CTAs (one per SM is the intent).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v5(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16,
                                               m: u32, n: u32, k: u32) {
    // SAFETY: as h4, with the running index `it` in place of the K tile index: both roles walk the same
    // tile sequence (b, b + grid, …) and the same k_tiles per tile, so their `it`s agree; use u of stage s
    // is released exactly once by each consumer warp (inside the loop for all but a tile's last K tile,
    // after `wait_group 0` for the last), which is what the producer's wait for phase u − 1 needs.
    unsafe {
        warp_specialized! {
            // STAGES × 48 KiB stages, then the full and empty barrier rings (layout: `Ring`).
            ring: let (ring, _) = (STAGES, STAGE_BYTES, 0);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(BM), n.div_ceil(BN));
                let tiles = tiles_m * tiles_n;
                let k_tiles = k.div_ceil(BK);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                produce_persistent::<1>(ring, tmap_a, tmap_b, tiles_m, tiles_n, k_tiles);
            }
            consumer(mh): {
                let warp = (tid / 32) % 4;
                let mut it = 0u32;
                let mut tile = block_idx_x();
                while tile < tiles {
                    let (tm, tn) = persistent_tile(tile, tiles_m, tiles_n);
                    let (row0, n0) = (tm * BM + 64 * mh, tn * BN);
                    let r_acc = consume_wide_tile::<F16, [[f32; 32]; 4], 1>(ring, &mut it, k_tiles, mh);
                    store_wide(&r_acc, g_c, m, n, row0, n0, warp);
                    tile += grid_dim_x();
                }
            }
        }
    }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_tma_v5, 384, 1);
