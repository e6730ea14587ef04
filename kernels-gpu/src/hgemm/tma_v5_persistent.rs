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
//! Prediction: hides the epilogue and the launch tail, better L2 reuse: ~1.05–1.15× h4.
use super::tma::{BK, BM, BN_WIDE as BN, WIDE_STAGE_BYTES as STAGE_BYTES, init_rings, issue_wide_stage, mma_wide_stage, store_block};
use crate::prim::{
    mbarrier::{mbarrier_arrive, mbarrier_wait_parity},
    shared::{Align16, addr_of, dynamic},
    sync::sync_threads,
    thread::{block_idx_x, grid_dim_x, lane_id, thread_idx_x},
    tma::TensorMap,
    wgmma::{setmaxnreg_dec, setmaxnreg_inc, wgmma_fence_operand, wgmma_wait_group},
};
use layout::sgemm::grouped_block;

/// Stages in the ring.
pub const STAGES: u32 = 4;
/// Tile rows per group of the tile order.
const GROUP: u32 = 8;

/// `C = A · B` as [`super::tma_v4_wide::hgemm_tma_v4`], persistent over the C tiles.
///
/// # Safety
/// As h4, but a 1-D grid of at most `⌈M/128⌉ · ⌈N/256⌉` CTAs (one per SM is the intent).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v5(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16,
                                               m: u32, n: u32, k: u32) {
    let s_raw = addr_of(dynamic::<Align16>());
    let s_ring = (s_raw + 1023) & !1023;
    let s_full = s_ring + STAGES * STAGE_BYTES;
    let s_empty = s_full + 8 * STAGES;
    let stage = |it: u32| s_ring + (it % STAGES) * STAGE_BYTES;
    let tid = thread_idx_x();
    let wg = tid / 128;
    let (tiles_m, tiles_n) = (m.div_ceil(BM), n.div_ceil(BN));
    let tiles = tiles_m * tiles_n;
    let k_tiles = k.div_ceil(BK);
    // SAFETY: as h4, with the running index `it` in place of the K tile index: both roles walk the same
    // tile sequence (b, b + grid, …) and the same k_tiles per tile, so their `it`s agree; use u of stage s
    // is released exactly once by each consumer warp (inside the loop for all but a tile's last K tile,
    // after `wait_group 0` for the last), which is what the producer's wait for phase u − 1 needs.
    unsafe {
        if tid == 0 {
            init_rings(s_full, s_empty, STAGES, tmap_a, tmap_b);
        }
        sync_threads();
        if wg == 0 {
            setmaxnreg_dec::<40>();
            if tid == 0 {
                let mut it = 0u32;
                let mut tile = block_idx_x();
                while tile < tiles {
                    let (tm, tn) = grouped_block(tile, tiles_m, tiles_n, GROUP);
                    let (m0, n0) = (tm * BM, tn * BN);
                    for kt in 0..k_tiles {
                        let (s, u) = (it % STAGES, it / STAGES);
                        if u > 0 {
                            mbarrier_wait_parity(s_empty + 8 * s, (u - 1) & 1);
                        }
                        issue_wide_stage(stage(it), s_full + 8 * s, tmap_a, tmap_b, m0, n0, kt);
                        it += 1;
                    }
                    tile += grid_dim_x();
                }
            }
        } else {
            setmaxnreg_inc::<232>();
            let mh = wg - 1;
            let (warp, lane) = ((tid / 32) % 4, lane_id());
            let mut it = 0u32;
            let mut tile = block_idx_x();
            while tile < tiles {
                let (tm, tn) = grouped_block(tile, tiles_m, tiles_n, GROUP);
                let (row0, n0) = (tm * BM + 64 * mh, tn * BN);
                let mut r_acc = [[0f32; 32]; 4]; // [nb]: columns 64·nb .. of the tile
                for kt in 0..k_tiles {
                    let (s, u) = (it % STAGES, it / STAGES);
                    mbarrier_wait_parity(s_full + 8 * s, u & 1);
                    mma_wide_stage(&mut r_acc, stage(it), mh);
                    wgmma_wait_group::<1>();
                    for acc in r_acc.iter_mut() {
                        wgmma_fence_operand(acc);
                    }
                    if kt > 0 && lane == 0 {
                        mbarrier_arrive(s_empty + 8 * ((it - 1) % STAGES));
                    }
                    it += 1;
                }
                wgmma_wait_group::<0>();
                for acc in r_acc.iter_mut() {
                    wgmma_fence_operand(acc);
                }
                if k_tiles > 0 && lane == 0 {
                    mbarrier_arrive(s_empty + 8 * ((it - 1) % STAGES));
                }
                let [acc0, acc1, acc2, acc3] = &r_acc;
                store_block(acc0, g_c, m, n, row0, n0, warp);
                store_block(acc1, g_c, m, n, row0, n0 + 64, warp);
                store_block(acc2, g_c, m, n, row0, n0 + 128, warp);
                store_block(acc3, g_c, m, n, row0, n0 + 192, warp);
                tile += grid_dim_x();
            }
        }
    }
}

core::arch::global_asm!(
    "//@entry-directive hgemm_tma_v5 .maxntid 384, 1, 1",
    "//@entry-directive hgemm_tma_v5 .minnctapersm 1",
);
