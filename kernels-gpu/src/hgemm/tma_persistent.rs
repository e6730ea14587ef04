//! The persistent schedule of the Hopper steps h5, h6 and h9 (introduced by h5, whose file explains it):
//! one CTA per SM — or one cluster of CTAs per pair of SMs (h9) — walks the C tiles `b, b + grid, …` in
//! the grouped order (`util::grouped`), and one producer thread issues every stage of every tile, its
//! ring position `it` running on across tiles. The FP8 steps walk their tiles with the same [`TileWalk`].
use super::tma::{BM, BN_WIDE};
use super::tma_warp_specialized::Ring;
use super::tma_wide_tile::issue_wide_stage_cluster;
use crate::prim::{
    cluster::cluster_ctarank,
    thread::{block_idx_x, grid_dim_x},
    tma::TensorMap,
};
use crate::util::grouped::{GROUP, grouped_block};

/// The tile (row, column) the persistent steps give to position `tile` of a CTA's sequence
/// `b, b + grid, …`: the grouped order of [`crate::util::grouped`] ([`GROUP`] tile rows per group).
#[inline(always)]
pub(crate) fn persistent_tile(tile: u32, tiles_m: u32, tiles_n: u32) -> (u32, u32) {
    grouped_block(tile, tiles_m, tiles_n, GROUP)
}

/// A CTA's walk over the C tiles of a persistent launch: positions `b, b + g, …` of the grouped order
/// ([`persistent_tile`]) over tile *groups* of `CLUSTER` vertically adjacent tiles (`b` = this CTA's
/// cluster, `g` = clusters in the grid); the CTA of rank r takes tile row `CLUSTER · p + r` of group
/// row p. A rank whose row is past the last tile (odd tile rows) still walks it: its loads are zero
/// filled, its stores clipped, and its peer needs its share of B and its releases.
///
/// ```text
/// CLUSTER = 2, tiles_m = 5:   group row 0 = tile rows 0 (rank 0), 1 (rank 1)
///                             group row 1 = tile rows 2, 3;  group row 2 = tile rows 4, 5 (past M: clipped)
/// CLUSTER = 1: the walk of h5/h6 (`persistent_tile(b + i·grid)`, rank 0)
/// ```
pub(crate) struct TileWalk<const CLUSTER: u32> {
    next: u32,
    stride: u32,
    groups: u32,
    groups_m: u32,
    tiles_n: u32,
    rank: u32,
}

impl<const CLUSTER: u32> TileWalk<CLUSTER> {
    /// The walk of this CTA over `tiles_m × tiles_n` tiles.
    #[inline(always)]
    pub(crate) fn new(tiles_m: u32, tiles_n: u32) -> Self {
        let groups_m = tiles_m.div_ceil(CLUSTER);
        let rank = if CLUSTER == 1 { 0 } else { cluster_ctarank() };
        TileWalk { next: block_idx_x() / CLUSTER, stride: grid_dim_x() / CLUSTER, groups: groups_m * tiles_n, groups_m, tiles_n, rank }
    }

    /// This CTA's rank in its cluster.
    #[inline(always)]
    pub(crate) fn rank(&self) -> u32 {
        self.rank
    }
}

impl<const CLUSTER: u32> Iterator for TileWalk<CLUSTER> {
    type Item = (u32, u32);
    /// The next tile (row, column) of this CTA.
    #[inline(always)]
    fn next(&mut self) -> Option<(u32, u32)> {
        if self.next >= self.groups {
            return None;
        }
        let (gm, tn) = persistent_tile(self.next, self.groups_m, self.tiles_n);
        self.next += self.stride;
        Some((gm * CLUSTER + self.rank, tn))
    }
}

/// The producer of the persistent wide steps (h5, h6, h9), run by one thread: for each of this CTA's
/// tiles ([`TileWalk`]) and each K tile, wait until the stage's previous use is released (by every CTA
/// of the cluster), then issue its loads (`tma_wide_tile::issue_wide_stage_cluster`). `it` runs on
/// across tiles, so stages and phases continue where the previous tile stopped.
///
/// # Safety
/// One thread; the ring (of `WIDE_STAGE_BYTES` stages) initialized by [`Ring::init`] (with `CLUSTER > 1`,
/// empty barriers counting every CTA's consumer warps: `warp_specialized!`'s `cluster:` arm); the
/// consumers walk the same tiles and K tiles and release every stage use (as
/// `tma_wide_tile::consume_wide_tile` does); tensor maps as the kernels' `# Safety`.
#[inline(always)]
pub(super) unsafe fn produce_persistent<const CLUSTER: u32>(ring: Ring, tmap_a: *const TensorMap, tmap_b: *const TensorMap,
                                                            tiles_m: u32, tiles_n: u32, k_tiles: u32) {
    let mut it = 0u32;
    let walk = TileWalk::<CLUSTER>::new(tiles_m, tiles_n);
    let rank = walk.rank();
    for (tm, tn) in walk {
        for kt in 0..k_tiles {
            let (s_stage, full, _, _) = ring.at(it);
            // SAFETY: forwarded to the caller; use u − 1 of this stage is released before it is refilled.
            unsafe {
                ring.wait_empty(it);
                issue_wide_stage_cluster::<CLUSTER>(s_stage, full, tmap_a, tmap_b, tm * BM, tn * BN_WIDE, kt, rank);
            }
            it += 1;
        }
    }
}
