//! The body of the Hopper steps with the TMA-store epilogue (introduced by h6, whose file explains it):
//! h5's persistent warp-specialized 128×256 tile, each consumer's C staged in shared memory and
//! stored by the TMA ([`tma_store`]); in clusters of two sharing B by multicast for h9. Runs h6, h6s4,
//! h9 and h9s4.
use super::elem::Elem16;
use super::tma::{BK, BM, BN_WIDE as BN, WIDE_STAGE_BYTES as STAGE_BYTES};
use super::tma_persistent::{TileWalk, produce_persistent};
use super::tma_store::store_wide_tile;
use super::tma_warp_specialized::warp_specialized;
use super::tma_wide_tile::consume_wide_tile;
use crate::prim::{
    thread::lane_id,
    tma::{TensorMap, cp_async_bulk_wait_group0},
};
use layout::hopper::tma_hgemm::{C_BOX_BYTES, wide_staged_boxes};

/// The body of h6 for inputs and output of type `E`, with `STAGES` stages, in clusters of `CLUSTER`
/// CTAs (h9: 2) on vertically adjacent tiles that share B by TMA multicast
/// (`tma_wide_tile::issue_wide_stage_cluster`; the walk is `tma_persistent::TileWalk`). With more
/// than 3 stages a consumer stages two of its four C boxes at a time
/// (`layout::hopper::tma_hgemm::wide_staged_boxes`) and stores its result in two halves.
///
/// # Safety
/// As [`hgemm_tma_v6`](super::tma_v6_tma_store::hgemm_tma_v6), with `wide_dyn_smem(STAGES)` bytes of dynamic shared memory; with `CLUSTER = 2`
/// a cluster launch of 2 CTAs along x and an even grid.
#[inline(always)]
pub(super) unsafe fn tma_store<E: Elem16, const CLUSTER: u32, const STAGES: u32>(tmap_a: *const TensorMap, tmap_b: *const TensorMap,
                                                                                 tmap_c: *const TensorMap, m: u32, n: u32, k: u32) {
    // Boxes a consumer stages at once, and its staging area (1024-aligned: the stages are multiples of 1024).
    let staged = wide_staged_boxes(STAGES);
    let staging = staged * C_BOX_BYTES;
    // SAFETY: the main loop as h5 (same proof); with CLUSTER = 2, both CTAs walk the same tile groups
    // and K tiles (`TileWalk`), so their rings agree stage for stage: each stage is filled by both
    // producers (own A, two B boxes each multicast into both) and released by all 16 consumer warps of
    // the pair (empty barriers counting 16: the skeleton's `cluster:` arm) before either refills it; the
    // skeleton's cluster barriers publish the barrier initialization before any remote access and keep
    // both CTAs alive until no peer can arrive or multicast. Epilogue: a consumer's staging area is
    // rewritten only after the thread that issued the previous stores saw them finish reading it
    // (`wait_group.read 0`) and the warpgroup passed named barrier 1 + mh (128 threads, the whole
    // warpgroup); the stores are issued only after every writer's `fence.proxy.async` and a second pass
    // of that barrier (`store_tile`, twice per tile when two boxes are staged at once); all staging
    // writes lie inside the consumer's `staging` bytes (row < 64, byte < 128 per box). The issuing
    // thread waits for its stores before exit. A tile row past M (odd tile rows in a cluster) loads
    // zero-filled A and stores nothing (the TMA clips rows ≥ M).
    unsafe {
        warp_specialized! {
            cluster: CLUSTER;
            // STAGES × 48 KiB stages, the two consumers' C staging, then the full and empty barrier
            // rings (layout: `Ring`).
            ring: let (ring, s_cstage) = (STAGES, STAGE_BYTES, 2 * staging);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(BM), n.div_ceil(BN));
                let k_tiles = k.div_ceil(BK);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                produce_persistent::<CLUSTER>(ring, tmap_a, tmap_b, tiles_m, tiles_n, k_tiles);
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let leader = tid % 128 == 0;
                let mut it = 0u32;
                for (tm, tn) in TileWalk::<CLUSTER>::new(tiles_m, tiles_n) {
                    let (row0, n0) = (tm * BM + 64 * mh, tn * BN);
                    let r_acc = consume_wide_tile::<E, [[f32; 32]; 4], CLUSTER>(ring, &mut it, k_tiles, mh);
                    store_wide_tile::<E>(&r_acc, tmap_c, s_cstage + mh * staging, staged, row0, n0, mh, leader, warp, lane);
                }
                if leader {
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}
