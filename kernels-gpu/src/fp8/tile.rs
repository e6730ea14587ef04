//! Pieces shared by the FP8 steps: a stage's TMA loads (A: 128 rows × 128 K bytes, B: `BN` rows of N ×
//! 128 K bytes, both `SWIZZLE_128B` boxes), the K-major `wgmma` descriptors, the persistent walk over
//! `128 × BN` tiles and its producer — for one CTA (`CLUSTER = 1`) or a cluster of CTAs on vertically
//! adjacent tiles that share B through TMA multicast (`CLUSTER = 2`, f5–f6).
//!
//! ```text
//! stage (1024-aligned):  | A: 128 rows × 128 B (16 KiB) | B: BN rows × 128 B (BN/8 KiB) |
//!                          rows 0–63: consumer 0, 64–127: consumer 1   (both K-major, SBO = 1024)
//! one wgmma K step = 32 e4m3 = 32 bytes along every row: 4 steps per stage (descriptor + 32·ks)
//!
//! CLUSTER = 2: CTA r of the cluster computes tile row 2p + r, both the same tile column; each loads
//! its own A and B rows r·BN/2 .. (r+1)·BN/2, multicast to both CTAs (same offsets, both full barriers):
//! every B byte crosses from L2 once per pair of tiles instead of once per tile.
//!
//! f17 (192 × 192, three consumers): | A: 192 rows × 128 B (24 KiB) | B: 192 rows × 128 B (24 KiB) |
//!                          rows 0–63, 64–127, 128–191: consumers 0, 1, 2  (`*_rows` functions)
//! ```
//!
//! Also the consumers' accumulators as a type ([`Accumulators`]: the `wgmma` of the tile's width and the
//! C staging) and the per-tensor K loop over them ([`consume_whole_k`]).
pub(super) use crate::hgemm::tma_persistent::TileWalk;
use crate::hgemm::{
    elem::Bf16,
    tma_store::{stage_c_box, store_tile},
    tma_warp_specialized::Ring,
};
use crate::prim::{
    mbarrier::mbarrier_arrive_expect_tx,
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s, cp_async_bulk_tensor_2d_g2s_multicast},
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_m64n64k32_f32_e4m3, wgmma_m64n128k32_f32_e4m3, wgmma_m64n192k32_f32_e4m3,
            wgmma_m64n256k32_f32_e4m3, wgmma_wait_group},
};
use layout::fp8::tiles::{A_BYTES, BK, BM, f27_b_box_rows};
use layout::hopper::WgmmaDesc;

/// The descriptor of a K-major operand at shared address 0 with 128-byte swizzled rows (A's 64-row
/// half and B's `BN` rows alike: with a swizzle the row count is not in the descriptor), checked when
/// the crate is compiled.
const K_MAJOR_0: WgmmaDesc = WgmmaDesc::K_MAJOR_SW128;
const _: () = assert!(BK == 128, "an FP8 stage's K rows are one 128-byte swizzle span");

/// Descriptor of rows `64·mh ..` of the stage's A tile. `s_stage` is a 1024-aligned `.shared` address
/// below 228 KiB (fits the descriptor's 14-bit field, as `hgemm::tma::a_desc`).
#[inline(always)]
pub(super) fn a_desc(s_stage: u32, mh: u32) -> WgmmaDesc {
    K_MAJOR_0.advance(s_stage + mh * (A_BYTES / 2))
}

/// Descriptor of the stage's B tile (all `BN` rows of N, K-major).
#[inline(always)]
pub(super) fn b_desc(s_stage: u32) -> WgmmaDesc {
    b_desc_after::<BM>(s_stage)
}

/// Descriptor of the B tile of a stage whose A tile has `ROWS` rows (f17: 192), right after it.
#[inline(always)]
pub(super) fn b_desc_after<const ROWS: u32>(s_stage: u32) -> WgmmaDesc {
    K_MAJOR_0.advance(s_stage + ROWS * BK)
}

/// Issues the TMA loads of K tile `kt` of the `128 × BN` C tile at `(m0, n0)` into `s_stage`, announced
/// on `bar` as one transaction of the whole stage (`A_BYTES + BN · BK`: the TMA counts zero-filled
/// bytes beyond the tensor's edge too): A's box (128 K bytes × 128 rows at `(k0, m0)`); B's box
/// (`BN` rows at `(k0, n0)`), or with `CLUSTER > 1` rows `rank · BN/CLUSTER ..` of it multicast to every
/// CTA of the cluster (whose peers load the other rows into this stage, signalling this `bar`).
///
/// # Safety
/// One thread; `s_stage` a 1024-aligned `.shared` address of `A_BYTES + BN · BK` bytes that nobody reads
/// until `bar`'s phase completes — in every CTA of the cluster; `bar` an initialized mbarrier expecting
/// one arrival; `tmap_a` describes A (M×K e4m3, box 128 × 128) and `tmap_b` B (N×K e4m3, box
/// `BN/CLUSTER` rows × 128), both `SWIZZLE_128B`.
#[inline(always)]
pub(super) unsafe fn issue_stage<const BN: u32, const CLUSTER: u32>(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap,
                                                                   m0: u32, n0: u32, kt: u32, rank: u32) {
    // SAFETY: forwarded to the caller (A's box is BM rows).
    unsafe { issue_stage_rows::<BM, BN, CLUSTER>(s_stage, bar, tmap_a, tmap_b, m0, n0, kt, rank) }
}

/// [`issue_stage`] for a tile of `ROWS` rows of A (f17: 192; `tmap_a`'s box `ROWS` rows, the stage
/// `ROWS · 128 + BN · 128` bytes, B right after A; with `CLUSTER` = 1 and `BN` over 256, B's box
/// `f27_b_box_rows(BN)` rows, loaded twice).
///
/// # Safety
/// As [`issue_stage`], with those boxes and that stage size; `BN / CLUSTER` ≤ 256 where `CLUSTER` > 1.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn issue_stage_rows<const ROWS: u32, const BN: u32, const CLUSTER: u32>(s_stage: u32, bar: u32, tmap_a: *const TensorMap,
                                                                                          tmap_b: *const TensorMap, m0: u32, n0: u32, kt: u32, rank: u32) {
    let k0 = (kt * BK) as i32;
    let a_bytes = ROWS * BK;
    // SAFETY: forwarded to the caller.
    unsafe {
        mbarrier_arrive_expect_tx(bar, a_bytes + BN * BK);
        cp_async_bulk_tensor_2d_g2s(s_stage, tmap_a, k0, m0 as i32, bar);
        if CLUSTER == 1 {
            // B beyond the TMA's 256-row box (f27's 320 and 384): two boxes of `BN / 2` rows, back to back
            // in the same swizzled layout. A branch on the constants: every other step's PTX unchanged.
            let box_rows = f27_b_box_rows(BN);
            cp_async_bulk_tensor_2d_g2s(s_stage + a_bytes, tmap_b, k0, n0 as i32, bar);
            if box_rows < BN {
                cp_async_bulk_tensor_2d_g2s(s_stage + a_bytes + box_rows * BK, tmap_b, k0, (n0 + box_rows) as i32, bar);
            }
        } else {
            let rows = BN / CLUSTER;
            cp_async_bulk_tensor_2d_g2s_multicast(s_stage + a_bytes + rank * rows * BK, tmap_b, k0, (n0 + rank * rows) as i32, bar,
                                                  ((1u32 << CLUSTER) - 1) as u16);
        }
    }
}

/// The persistent producer (one thread) over `128 × BN` tiles, as `hgemm::tma_persistent`'s: for each of
/// this CTA's tiles ([`TileWalk`]) and K tile, wait until the stage is released (by every CTA of the
/// cluster), then issue it.
///
/// # Safety
/// One thread; the ring of `A_BYTES + BN · BK`-byte stages initialized (empty barriers counting every
/// CTA's consumer warps); the consumers walk the same tiles and K tiles and release every stage use;
/// tensor maps as [`issue_stage`].
#[inline(always)]
pub(super) unsafe fn produce<const BN: u32, const CLUSTER: u32>(ring: Ring, tmap_a: *const TensorMap, tmap_b: *const TensorMap,
                                                                tiles_m: u32, tiles_n: u32, k_tiles: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { produce_rows::<BM, BN, CLUSTER>(ring, tmap_a, tmap_b, tiles_m, tiles_n, k_tiles) }
}

/// [`produce`] over `ROWS × BN` tiles ([`issue_stage_rows`]).
///
/// # Safety
/// As [`produce`], with the ring's stages `ROWS · 128 + BN · 128` bytes and the boxes of
/// [`issue_stage_rows`].
#[inline(always)]
pub(super) unsafe fn produce_rows<const ROWS: u32, const BN: u32, const CLUSTER: u32>(ring: Ring, tmap_a: *const TensorMap, tmap_b: *const TensorMap,
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
                issue_stage_rows::<ROWS, BN, CLUSTER>(s_stage, full, tmap_a, tmap_b, tm * ROWS, tn * BN, kt, rank);
            }
            it += 1;
        }
    }
}

/// The per-tensor steps' K loop over one tile (introduced by f1, as `hgemm::tma_wide_tile::
/// consume_wide_tile` with four `m64n256k32` per stage): rows `64·mh ..` × 256 columns, one `wgmma`
/// group in flight, each stage released (in every CTA of the cluster) after the next one's group is
/// committed and the older retired. Advances `it` by `k_tiles`.
///
/// # Safety
/// All 128 threads of a consumer warpgroup; the ring initialized; the producer issues the same tiles;
/// `CLUSTER` as [`Ring::release_cluster`] requires.
#[inline(always)]
pub(super) unsafe fn consume_wide<const CLUSTER: u32>(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32) -> [[f32; 32]; 4] {
    // SAFETY: forwarded to the caller (A's tile is BM rows).
    unsafe { consume_whole_k::<[[f32; 32]; 4], BM, CLUSTER>(ring, it, k_tiles, mh) }
}

/// [`consume_wide`] for accumulators `A` (`64 · A::BOXES` columns) behind an A tile of `ROWS` rows
/// (f17: `[[f32; 32]; 3]` behind 192).
///
/// # Safety
/// As [`consume_wide`]; the ring's stages hold `ROWS` rows of A, then B ([`issue_stage_rows`]).
#[inline(always)]
pub(super) unsafe fn consume_whole_k<A: Accumulators, const ROWS: u32, const CLUSTER: u32>(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32) -> A {
    let mut r_acc = A::default();
    // SAFETY: forwarded to the caller; the accumulators are pinned around every fence and wait.
    unsafe {
        for kt in 0..k_tiles {
            ring.wait_full(*it);
            let s_stage = ring.at(*it).0;
            let (d_a, d_b) = (a_desc(s_stage, mh), b_desc_after::<ROWS>(s_stage));
            r_acc.pin();
            wgmma_fence();
            for ks in 0..BK / 32 {
                r_acc.mma_k32(d_a.advance(32 * ks).0, d_b.advance(32 * ks).0, true);
            }
            wgmma_commit_group();
            wgmma_wait_group::<1>();
            r_acc.pin();
            if kt > 0 {
                ring.release_cluster::<CLUSTER>(*it - 1);
            }
            *it += 1;
        }
        wgmma_wait_group::<0>();
        r_acc.pin();
        if k_tiles > 0 {
            ring.release_cluster::<CLUSTER>(*it - 1);
        }
    }
    r_acc
}

/// A consumer warpgroup's accumulators of one tile — 64 rows × 64·`BOXES` columns as 64-column
/// blocks (`[[f32; 32]; 2]` for 128-wide tiles, `[[f32; 32]; 3]` for 192, `[[f32; 32]; 4]` for 256) —
/// and their bf16 TMA-store epilogue.
pub(super) trait Accumulators: Default {
    /// 64-column blocks.
    const BOXES: u32;
    /// One `wgmma.m64n{64·BOXES}k32` of e4m3 into these accumulators.
    ///
    /// # Safety
    /// As the `wgmma` wrapper of that width.
    unsafe fn mma_k32(&mut self, desc_a: u64, desc_b: u64, scale_d: bool);
    /// `wgmma_fence_operand` on every block (pins them around fences and waits).
    fn pin(&mut self);
    /// Writes the blocks as bf16 into the staging boxes at `s_c` (8 KiB apart: `tma_store::stage_c_box`),
    /// one call per box with a constant accumulator reference (a loop over the boxes put the
    /// accumulators in local memory).
    ///
    /// # Safety
    /// As `stage_c_box` for each box; `warp`, `lane` this thread's in its consumer warpgroup.
    unsafe fn stage(&self, s_c: u32, warp: u32, lane: u32);
    /// Stages the blocks in `s_c` and stores them at row `row0`, columns `n0 ..` (`tma_store::store_tile`:
    /// a CTA of two consumer warpgroups).
    ///
    /// # Safety
    /// As `store_tile` with `BOXES` boxes; `warp`, `lane` this thread's in consumer warpgroup `mh`.
    unsafe fn store(&self, tmap_c: *const TensorMap, s_c: u32, row0: u32, n0: u32, mh: u32, leader: bool, warp: u32, lane: u32);
}

/// The `Accumulators` impl of `[[f32; 32]; $boxes]`: its `wgmma` wrapper and one `stage_c_box` per box.
macro_rules! accumulators {
    ($boxes:literal, $mma:ident, [$($acc:ident @ $off:literal),*]) => {
        impl Accumulators for [[f32; 32]; $boxes] {
            const BOXES: u32 = $boxes;
            #[inline(always)]
            unsafe fn mma_k32(&mut self, desc_a: u64, desc_b: u64, scale_d: bool) {
                // SAFETY: forwarded to the caller.
                unsafe { $mma(self, desc_a, desc_b, scale_d) }
            }
            #[inline(always)]
            fn pin(&mut self) {
                for blk in self.iter_mut() {
                    wgmma_fence_operand(blk);
                }
            }
            #[inline(always)]
            unsafe fn stage(&self, s_c: u32, warp: u32, lane: u32) {
                let [$($acc),*] = self;
                // SAFETY: forwarded to the caller; one `stage_c_box` per 8 KiB box.
                unsafe { $(stage_c_box::<Bf16>($acc, s_c + $off, warp, lane);)* }
            }
            #[inline(always)]
            unsafe fn store(&self, tmap_c: *const TensorMap, s_c: u32, row0: u32, n0: u32, mh: u32, leader: bool, warp: u32, lane: u32) {
                // SAFETY: forwarded to the caller.
                unsafe { store_tile::<$boxes>(tmap_c, s_c, row0, n0, mh, leader, || self.stage(s_c, warp, lane)) }
            }
        }
    };
}
accumulators!(2, wgmma_m64n128k32_f32_e4m3, [acc0 @ 0, acc1 @ 8192]);
accumulators!(3, wgmma_m64n192k32_f32_e4m3, [acc0 @ 0, acc1 @ 8192, acc2 @ 16384]);
accumulators!(4, wgmma_m64n256k32_f32_e4m3, [acc0 @ 0, acc1 @ 8192, acc2 @ 16384, acc3 @ 24576]);

/// f27's 320-wide accumulators: the first four 64-column blocks (one `wgmma.m64n256k32` from B's rows
/// 0–255) and the fifth (`m64n64k32` from rows 256–319: K-major rows of 128 bytes, 32 KiB further on, the
/// same swizzle phase). Two fields, not a `[[f32; 32]; 5]`: split at run time, the array went to local
/// memory.
#[derive(Clone, Copy, Default)]
pub(super) struct Wide320 {
    pub(super) head: [[f32; 32]; 4],
    pub(super) tail: [f32; 32],
}

/// f27's 384-wide accumulators: two halves of three 64-column blocks, each one `wgmma.m64n192k32` (B's rows
/// 0–191 and 192–383, 24 KiB further on).
#[derive(Clone, Copy, Default)]
pub(super) struct Wide384 {
    pub(super) lo: [[f32; 32]; 3],
    pub(super) hi: [[f32; 32]; 3],
}

impl Accumulators for Wide320 {
    const BOXES: u32 = 5;
    #[inline(always)]
    unsafe fn mma_k32(&mut self, desc_a: u64, desc_b: u64, scale_d: bool) {
        // SAFETY: forwarded to the caller (B holds at least 320 rows).
        unsafe {
            wgmma_m64n256k32_f32_e4m3(&mut self.head, desc_a, desc_b, scale_d);
            wgmma_m64n64k32_f32_e4m3(&mut self.tail, desc_a, WgmmaDesc(desc_b).advance(256 * BK).0, scale_d);
        }
    }
    #[inline(always)]
    fn pin(&mut self) {
        self.head.pin();
        wgmma_fence_operand(&mut self.tail);
    }
    #[inline(always)]
    unsafe fn stage(&self, s_c: u32, warp: u32, lane: u32) {
        // SAFETY: forwarded to the caller.
        unsafe {
            self.head.stage(s_c, warp, lane);
            stage_c_box::<Bf16>(&self.tail, s_c + 4 * 8192, warp, lane);
        }
    }
    #[inline(always)]
    unsafe fn store(&self, tmap_c: *const TensorMap, s_c: u32, row0: u32, n0: u32, mh: u32, leader: bool, warp: u32, lane: u32) {
        // SAFETY: forwarded to the caller.
        unsafe { store_tile::<5>(tmap_c, s_c, row0, n0, mh, leader, || self.stage(s_c, warp, lane)) }
    }
}

impl Accumulators for Wide384 {
    const BOXES: u32 = 6;
    #[inline(always)]
    unsafe fn mma_k32(&mut self, desc_a: u64, desc_b: u64, scale_d: bool) {
        // SAFETY: forwarded to the caller (B holds at least 384 rows).
        unsafe {
            wgmma_m64n192k32_f32_e4m3(&mut self.lo, desc_a, desc_b, scale_d);
            wgmma_m64n192k32_f32_e4m3(&mut self.hi, desc_a, WgmmaDesc(desc_b).advance(192 * BK).0, scale_d);
        }
    }
    #[inline(always)]
    fn pin(&mut self) {
        self.lo.pin();
        self.hi.pin();
    }
    #[inline(always)]
    unsafe fn stage(&self, s_c: u32, warp: u32, lane: u32) {
        // SAFETY: forwarded to the caller.
        unsafe {
            self.lo.stage(s_c, warp, lane);
            self.hi.stage(s_c + 3 * 8192, warp, lane);
        }
    }
    #[inline(always)]
    unsafe fn store(&self, tmap_c: *const TensorMap, s_c: u32, row0: u32, n0: u32, mh: u32, leader: bool, warp: u32, lane: u32) {
        // SAFETY: forwarded to the caller.
        unsafe { store_tile::<6>(tmap_c, s_c, row0, n0, mh, leader, || self.stage(s_c, warp, lane)) }
    }
}
