//! The persistent body of the wave-filling wide tiles h11 (128×192) and h12 (128×320), generic over the
//! tile's width: h6s4's producer and `TileWalk`, a stage of A's 128 rows and `BN / 64` B boxes, each
//! consumer warpgroup's K loop (`tma_wide_tile::consume_wide_tile`) on accumulators `A`, and `A`'s own
//! TMA-store epilogue ([`WideStore`]). h11's file introduces it; h12's adds the 320-wide form.
use super::elem::Elem16;
use super::tma::{A_BYTES, B_HALF_BYTES, BK, BM};
use super::tma_persistent::TileWalk;
use super::tma_store::{stage_c_box, store_tile, store_wide_tile};
use super::tma_warp_specialized::warp_specialized;
use super::tma_wide_tile::{WideAcc, Wide320, consume_wide_tile};
use crate::prim::{
    mbarrier::mbarrier_arrive_expect_tx,
    thread::lane_id,
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s, cp_async_bulk_wait_group0},
};
use layout::hopper::tma_hgemm::C_BOX_BYTES;

/// A's 128 rows and `boxes` 64-column B boxes of K tile `kt` into the stage at `s_stage`, one
/// transaction of `stage_bytes` on `bar` (`boxes` and `stage_bytes` constants of the caller's).
///
/// # Safety
/// One thread; the stage (1024-aligned, `stage_bytes` = A's 16 KiB + `boxes` · 8 KiB) is free; the
/// tensor maps as h6's (A box 128 × 64, B box 64 × 64, `SWIZZLE_128B`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn issue_stage(s_stage: u32, boxes: u32, stage_bytes: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m0: u32, n0: u32, kt: u32) {
    let k0 = (kt * BK) as i32;
    // SAFETY: forwarded to the caller; the boxes fill disjoint parts of the stage.
    unsafe {
        mbarrier_arrive_expect_tx(bar, stage_bytes);
        cp_async_bulk_tensor_2d_g2s(s_stage, tmap_a, k0, m0 as i32, bar);
        for nb in 0..boxes {
            cp_async_bulk_tensor_2d_g2s(s_stage + A_BYTES + nb * B_HALF_BYTES, tmap_b, (n0 + 64 * nb) as i32, k0, bar);
        }
    }
}

/// A consumer warpgroup's 64-row result written to C by TMA stores through its staging area: how many
/// 64×64 boxes it stages at once, and the store sequences.
pub(super) trait WideStore {
    /// 64×64 C boxes a consumer stages at once (its staging area, 8 KiB each).
    const STAGED: u32;
    /// Stores the result at row `row0`, columns `n0 ..` (`tma_store::store_tile`, one sequence per staged
    /// group of boxes: each box staged by a call with a constant accumulator reference — a loop over the
    /// boxes put them in local memory, h6).
    ///
    /// # Safety
    /// As `store_tile` for each sequence, with `s_c` the warpgroup's staging area of [`Self::STAGED`] boxes.
    #[allow(clippy::too_many_arguments)]
    unsafe fn store<E: Elem16>(&self, tmap_c: *const TensorMap, s_c: u32, row0: u32, n0: u32, mh: u32, leader: bool, warp: u32, lane: u32);
}

/// h11: the three boxes at once.
impl WideStore for [[f32; 32]; 3] {
    const STAGED: u32 = 3;
    #[inline(always)]
    unsafe fn store<E: Elem16>(&self, tmap_c: *const TensorMap, s_c: u32, row0: u32, n0: u32, mh: u32, leader: bool, warp: u32, lane: u32) {
        let [acc0, acc1, acc2] = self;
        // SAFETY: forwarded to the caller; three boxes inside the three-box staging area.
        unsafe {
            store_tile::<3>(tmap_c, s_c, row0, n0, mh, leader, || {
                stage_c_box::<E>(acc0, s_c, warp, lane);
                stage_c_box::<E>(acc1, s_c + C_BOX_BYTES, warp, lane);
                stage_c_box::<E>(acc2, s_c + 2 * C_BOX_BYTES, warp, lane);
            })
        }
    }
}

/// h12: boxes 0–1 and 2–3 as h6s4's halves (`tma_store::store_wide_tile` with two boxes staged), then 4,
/// each group staged once the TMA has read the last.
impl WideStore for Wide320 {
    const STAGED: u32 = 2;
    #[inline(always)]
    unsafe fn store<E: Elem16>(&self, tmap_c: *const TensorMap, s_c: u32, row0: u32, n0: u32, mh: u32, leader: bool, warp: u32, lane: u32) {
        // SAFETY: forwarded to the caller; at most two boxes inside the two-box staging area at a time.
        unsafe {
            store_wide_tile::<E>(&self.head, tmap_c, s_c, Self::STAGED, row0, n0, mh, leader, warp, lane);
            store_tile::<1>(tmap_c, s_c, row0, n0 + 256, mh, leader, || {
                stage_c_box::<E>(&self.tail, s_c, warp, lane);
            });
        }
    }
}

/// The body of h11 (`A` = `[[f32; 32]; 3]`, `BN` = 192) and h12 (`Wide320`, 320) for element type `E`:
/// a ring of `STAGES` stages of `STAGE_BYTES` (A and `BN / 64` B boxes), each consumer's `A::STAGED` C
/// boxes of staging after it.
///
/// # Safety
/// sm_90a; 384 threads, `dyn_smem(STAGES, STAGE_BYTES, 2 · A::STAGED · 8 KiB, 2)` bytes of dynamic shared
/// memory, a 1-D grid of at most `⌈M/128⌉·⌈N/BN⌉` CTAs; `tmap_a` describes A (M×K, box 128 × 64),
/// `tmap_b` B (K×N, box 64 × 64), `tmap_c` C (M×N, box 64 × 64), all `SWIZZLE_128B` and of `E`'s type,
/// in device memory and valid for the launch.
#[inline(always)]
pub(super) unsafe fn wide_tiles<E: Elem16, A: WideAcc<E> + WideStore, const BN: u32, const STAGES: u32, const STAGE_BYTES: u32>(
    tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, m: u32, n: u32, k: u32) {
    const { assert!(BN % 64 == 0 && STAGE_BYTES == A_BYTES + (BN / 64) * B_HALF_BYTES) };
    let staging = A::STAGED * C_BOX_BYTES;
    // SAFETY: the main loop as h6's (producer and consumers walk the same tiles, `TileWalk`, and K tiles,
    // so their ring indices agree; each stage released by all 8 consumer warps before it is refilled).
    // Epilogue: `WideStore::store`'s sequences on each consumer's own staging area (boxes of 64 rows ×
    // 128 bytes); `store_tile` waits until the TMA has read the area before it is written again; the
    // issuing thread waits for its stores before exit. Rows ≥ M, columns ≥ N: zero-filled loads, clipped
    // stores.
    unsafe {
        warp_specialized! {
            ring: let (ring, s_cstage) = (STAGES, STAGE_BYTES, 2 * staging);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(BM), n.div_ceil(BN));
                let k_tiles = k.div_ceil(BK);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                let mut it = 0u32;
                for (tm, tn) in TileWalk::<1>::new(tiles_m, tiles_n) {
                    for kt in 0..k_tiles {
                        ring.wait_empty(it);
                        let (s_stage, full, _, _) = ring.at(it);
                        issue_stage(s_stage, BN / 64, STAGE_BYTES, full, tmap_a, tmap_b, tm * BM, tn * BN, kt);
                        it += 1;
                    }
                }
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let leader = tid % 128 == 0;
                let s_c = s_cstage + mh * staging;
                let mut it = 0u32;
                for (tm, tn) in TileWalk::<1>::new(tiles_m, tiles_n) {
                    let r_acc: A = consume_wide_tile::<E, A, 1>(ring, &mut it, k_tiles, mh);
                    r_acc.store::<E>(tmap_c, s_c, tm * BM + 64 * mh, tn * BN, mh, leader, warp, lane);
                }
                if leader {
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}
