//! Pieces shared by the FP8 steps: a stage's TMA loads (A: 128 rows × 128 K bytes, B: `BN` rows of N ×
//! 128 K bytes, both `SWIZZLE_128B` boxes), the K-major `wgmma` descriptors, and the persistent
//! producer over `128 × BN` tiles.
//!
//! ```text
//! stage (1024-aligned):  | A: 128 rows × 128 B (16 KiB) | B: BN rows × 128 B (BN/8 KiB) |
//!                          rows 0–63: consumer 0, 64–127: consumer 1   (both K-major, SBO = 1024)
//! one wgmma K step = 32 e4m3 = 32 bytes along every row: 4 steps per stage (descriptor + 32·ks)
//! ```
use crate::hgemm::{tma_persistent::persistent_tile, tma_warp_specialized::Ring};
use crate::prim::{
    mbarrier::mbarrier_arrive_expect_tx,
    thread::{block_idx_x, grid_dim_x},
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s},
};
use layout::fp8::tiles::{A_BYTES, BK, BM};
use layout::hopper::{TmaSwizzle, WgmmaDesc};

/// The descriptor of a K-major operand at shared address 0 with 128-byte swizzled rows (A's 64-row
/// half and B's `BN` rows alike: with a swizzle the row count is not in the descriptor), checked when
/// the crate is compiled.
const K_MAJOR_0: WgmmaDesc = match WgmmaDesc::k_major(0, 64, BK, TmaSwizzle::B128) {
    Ok(d) => d,
    Err(_) => panic!("K-major descriptor"),
};

/// Descriptor of rows `64·mh ..` of the stage's A tile. `s_stage` is a 1024-aligned `.shared` address
/// below 228 KiB (fits the descriptor's 14-bit field, as `hgemm::tma::a_desc`).
#[inline(always)]
pub(super) fn a_desc(s_stage: u32, mh: u32) -> WgmmaDesc {
    K_MAJOR_0.advance(s_stage + mh * (A_BYTES / 2))
}

/// Descriptor of the stage's B tile (all `BN` rows of N, K-major).
#[inline(always)]
pub(super) fn b_desc(s_stage: u32) -> WgmmaDesc {
    K_MAJOR_0.advance(s_stage + A_BYTES)
}

/// Issues the TMA loads of K tile `kt` of the `128 × BN` C tile at `(m0, n0)` into `s_stage`: A's box
/// (128 K bytes × 128 rows at `(k0, m0)`) and B's (128 K bytes × `BN` rows at `(k0, n0)`), announced on
/// `bar` as one transaction of `A_BYTES + BN · BK` bytes (the TMA counts zero-filled bytes beyond the
/// tensor's edge too).
///
/// # Safety
/// One thread; `s_stage` a 1024-aligned `.shared` address of `A_BYTES + BN · BK` bytes that nobody reads
/// until `bar`'s phase completes; `bar` an initialized mbarrier expecting one arrival; `tmap_a` describes
/// A (M×K e4m3, box 128 × 128) and `tmap_b` B (N×K e4m3, box `BN` × 128), both `SWIZZLE_128B`.
#[inline(always)]
pub(super) unsafe fn issue_stage<const BN: u32>(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m0: u32, n0: u32, kt: u32) {
    let k0 = (kt * BK) as i32;
    // SAFETY: forwarded to the caller.
    unsafe {
        mbarrier_arrive_expect_tx(bar, A_BYTES + BN * BK);
        cp_async_bulk_tensor_2d_g2s(s_stage, tmap_a, k0, m0 as i32, bar);
        cp_async_bulk_tensor_2d_g2s(s_stage + A_BYTES, tmap_b, k0, n0 as i32, bar);
    }
}

/// The persistent producer (one thread) over `128 × BN` tiles, as `hgemm::tma_persistent`'s: for each of
/// this CTA's tiles (grouped order) and K tile, wait until the stage is released, then issue it.
///
/// # Safety
/// One thread; the ring of `A_BYTES + BN · BK`-byte stages initialized; the consumers walk the same
/// tiles and K tiles and release every stage use; tensor maps as [`issue_stage`].
#[inline(always)]
pub(super) unsafe fn produce<const BN: u32>(ring: Ring, tmap_a: *const TensorMap, tmap_b: *const TensorMap, tiles_m: u32, tiles_n: u32, k_tiles: u32) {
    let mut it = 0u32;
    let mut tile = block_idx_x();
    while tile < tiles_m * tiles_n {
        let (tm, tn) = persistent_tile(tile, tiles_m, tiles_n);
        for kt in 0..k_tiles {
            let (s_stage, full, _, _) = ring.at(it);
            // SAFETY: forwarded to the caller; use u − 1 of this stage is released before it is refilled.
            unsafe {
                ring.wait_empty(it);
                issue_stage::<BN>(s_stage, full, tmap_a, tmap_b, tm * BM, tn * BN, kt);
            }
            it += 1;
        }
        tile += grid_dim_x();
    }
}
