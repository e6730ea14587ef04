//! f15's producer and K loop (its file, `steps/v15_staged_scales.rs`, explains them; f16 runs them
//! under the stream-K body): each stage carries its K block's scales — A's 128 by a TMA box, B's two
//! written by the producer thread — and the consumers read them from shared memory.
//!
//! ```text
//! producer, per stage:  load sb pair (LDG) → wait empty → st.shared pair → expect_tx 512 → TMA sa box
//!                       → issue_stage (arrive.expect_tx A + B, TMA A, TMA B)
//! consumer, per stage:  wait full → ld.shared a_lo, a_hi, b pair → 4 × wgmma → wait 0 → release → promote
//! ```
use super::block_scaled::{ConsumeTile, Scales, issue, promote_block, retire_all};
use super::tile::{TileWalk, issue_stage};
use crate::hgemm::tma_warp_specialized::Ring;
use crate::prim::{
    mbarrier::mbarrier_expect_tx,
    shared::{ld_shared_f32, ld_shared_v2_u32, st_shared_v2_u32},
    sync::sync_warp,
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s},
};
use layout::fp8::tiles::{BM, F9_BN, SCALE_SLOT_B, block_stage_bytes, f9_mid_block_is_first};

/// f15's producer and K loop: f9's, with the scales in the stage.
pub(super) struct Staged192;

/// One thread's scales of one K block as read from the stage's slot: its two rows' A scales and the
/// tile's two B scales.
#[derive(Clone, Copy, Default)]
struct SlotScales {
    a_lo: f32,
    a_hi: f32,
    b_first: f32,
    b_second: f32,
}

impl SlotScales {
    /// Reads them from the slot at `s_slot` for tile row `r` (and `r + 8`): the 8 rows of a warp's lane
    /// quads are 8 consecutive words (no bank conflict), the B pair one 8-byte broadcast.
    ///
    /// # Safety
    /// The stage's full barrier has completed for this use and the stage is not yet released; `r + 8 < 128`.
    #[inline(always)]
    unsafe fn read(s_slot: u32, r: u32) -> SlotScales {
        // SAFETY: inside the slot (r + 8 < 128 words, then the pair at SCALE_SLOT_B, 8-byte aligned),
        // written before the phase the caller waited for completed, rewritten only after the release.
        unsafe {
            let [b0, b1] = ld_shared_v2_u32(s_slot + SCALE_SLOT_B);
            SlotScales { a_lo: ld_shared_f32(s_slot + 4 * r), a_hi: ld_shared_f32(s_slot + 4 * (r + 8)), b_first: f32::from_bits(b0), b_second: f32::from_bits(b1) }
        }
    }
}

impl ConsumeTile for Staged192 {
    type Acc = [[f32; 32]; 3];
    const STAGED_SCALES: bool = true;

    #[inline(always)]
    unsafe fn consume<const CLUSTER: u32>(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32, sc: Scales) -> [[f32; 32]; 3] {
        let mut r_acc = [[0f32; 32]; 3];
        let mut r_blk = [[0f32; 32]; 3];
        let mid_first = f9_mid_block_is_first(sc.n0());
        let r = sc.tile_row();
        // SAFETY: forwarded to the caller; the slot is read after `issue`'s full-barrier wait and before
        // `retire_all` releases the stage; `r` is a fragment row of rows 0..64 of the warpgroup's half
        // (r % 16 < 8), so r + 8 < 128; `r_blk` is pinned around the fence and the wait.
        unsafe {
            for _ in 0..k_tiles {
                let cur = *it;
                let mut s = SlotScales::default();
                issue(ring, cur, mh, &mut r_blk, || s = SlotScales::read(ring.at(cur).0 + block_stage_bytes(F9_BN), r));
                // Only lane 0 arrives on the empty barrier (`Ring::release`): the warp barrier orders
                // every lane's slot reads before that release, hence before the producer's next write
                // of the slot (the memory model's chain; in practice the warp's loads are long done).
                // compute-sanitizer's racecheck reports these reads and that write as hazards with or
                // without it: it does not follow the mbarrier ordering (fp8 README, session 17).
                sync_warp();
                retire_all::<_, CLUSTER>(ring, cur, &mut r_blk);
                *it += 1;
                let first = (s.a_lo * s.b_first, s.a_hi * s.b_first);
                let second = (s.a_lo * s.b_second, s.a_hi * s.b_second);
                let [acc0, acc1, acc2] = &mut r_acc;
                let [blk0, blk1, blk2] = &r_blk;
                promote_block(acc0, blk0, first);
                promote_block(acc1, blk1, if mid_first { first } else { second });
                promote_block(acc2, blk2, second);
            }
        }
        r_acc
    }

    /// Per stage: the block's two B scales loaded (before the empty-barrier wait, which hides their
    /// latency), the stage waited for, the pair stored in the slot, the A scales' 512 bytes expected and
    /// their box issued, then `tile::issue_stage` (its `arrive.expect_tx` is the phase's one arrival, a
    /// release that publishes the stored pair).
    #[inline(always)]
    unsafe fn produce<const BN: u32, const CLUSTER: u32>(ring: Ring, tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_sa: *const TensorMap,
                                                         sc: Scales, tiles_m: u32, tiles_n: u32, k_tiles: u32) {
        const { assert!(CLUSTER == 1 && BN == F9_BN, "f15 stages the scales of one CTA's 128x192 tiles") };
        let mut it = 0u32;
        for (tm, tn) in TileWalk::<1>::new(tiles_m, tiles_n) {
            let sc = sc.at_column(tn * BN);
            for kt in 0..k_tiles {
                let (s_stage, full, _, _) = ring.at(it);
                // SAFETY: forwarded to the caller (kt < ⌈k/128⌉, tn · BN < n); the stage is issued only
                // after its previous use was released.
                unsafe {
                    let b_pair = sc.load_b_pair(kt);
                    ring.wait_empty(it);
                    issue_staged_stage(s_stage, full, b_pair, tmap_a, tmap_b, tmap_sa, tm, tn, kt);
                }
                it += 1;
            }
        }
    }
}

/// Issues stage `kt` of the 128×192 tile `(tm, tn)` with its scales: the B pair (as loaded by
/// `Scales::load_b_pair`, before the empty-barrier wait that hides their latency) stored in the slot,
/// the A scales' 512 bytes expected and their box issued, then `tile::issue_stage` (whose
/// `arrive.expect_tx` is the phase's one arrival: a release that publishes the stored pair).
///
/// # Safety
/// One thread (the producer); the stage's previous use released; `full` its full barrier, expecting one
/// arrival; tensor maps as `fp8_gemm_v15` states; `kt < ⌈k/128⌉`, `(tm, tn)` a tile of the shape.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn issue_staged_stage(s_stage: u32, full: u32, (b_first, b_second): (f32, f32), tmap_a: *const TensorMap, tmap_b: *const TensorMap,
                                        tmap_sa: *const TensorMap, tm: u32, tn: u32, kt: u32) {
    let s_slot = s_stage + block_stage_bytes(F9_BN);
    // SAFETY: forwarded to the caller; the expectation precedes the box and the arrival, so the phase
    // cannot complete without the box; the box (row kt, columns tm · 128 ..) is inside the map but for
    // columns past M, which it zero-fills; its 512 bytes fit the 128-aligned slot.
    unsafe {
        st_shared_v2_u32(s_slot + SCALE_SLOT_B, [b_first.to_bits(), b_second.to_bits()]);
        mbarrier_expect_tx(full, BM * 4);
        cp_async_bulk_tensor_2d_g2s(s_slot, tmap_sa, (tm * BM) as i32, kt as i32, full);
        issue_stage::<F9_BN, 1>(s_stage, full, tmap_a, tmap_b, tm * BM, tn * F9_BN, kt, 0);
    }
}
