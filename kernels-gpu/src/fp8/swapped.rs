//! f22's 64×64 per-tensor tile computed transposed (`Cᵀ = B · Aᵀ`: the weights on `wgmma`'s M side, a
//! 64-row activation tile on its N side, both K-major), introduced by f22 whose file explains it: a
//! stage's two boxes ([`issue_stage`]) and the one consumer warpgroup's K loop ([`consume`]). f22 runs
//! it with all of K in each CTA, f24 with K split over a cluster.
//!
//! ```text
//! stage (16 KiB)  | weight box: 64 rows of B × 128 B | activation box: 64 rows of A × 128 B |
//! accumulators    wgmma.m64n64k32 D: row = weight column of C (n), column = activation row (m)
//! ```
use crate::hgemm::tma_warp_specialized::Ring;
use crate::prim::{
    mbarrier::mbarrier_arrive_expect_tx,
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s},
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_m64n64k32_f32_e4m3, wgmma_wait_group},
};
use layout::fp8::tiles::{BK, F22_STAGE_BYTES as STAGE_BYTES, F22_TILE as T};
use layout::hopper::WgmmaDesc;

/// Bytes of the weight box at the start of a stage (64 rows × 128 B); the activation box follows.
pub(super) const W_BYTES: u32 = T * BK;

/// Loads K tile `kt` of tile `(tm, tn)` (activation rows `64·tm ..`, weight rows `64·tn ..`) into the
/// stage at `s_stage`, announced on its full barrier `full` as one transaction of both whole boxes
/// (the TMA counts the zero-filled bytes beyond the tensors' edges).
///
/// # Safety
/// One thread; the stage (16 KiB, 1024-aligned) is free; `full` is its barrier; the maps as f22's
/// contract says (boxes of 64 rows × 128 B, `SWIZZLE_128B`).
#[inline(always)]
pub(super) unsafe fn issue_stage(s_stage: u32, full: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, tm: u32, tn: u32, kt: u32) {
    // SAFETY: forwarded to the caller; the two 8 KiB boxes lie at 1024-aligned offsets inside the stage.
    unsafe {
        mbarrier_arrive_expect_tx(full, STAGE_BYTES);
        cp_async_bulk_tensor_2d_g2s(s_stage, tmap_b, (kt * BK) as i32, (tn * T) as i32, full);
        cp_async_bulk_tensor_2d_g2s(s_stage + W_BYTES, tmap_a, (kt * BK) as i32, (tm * T) as i32, full);
    }
}

/// The consumer warpgroup's K loop over one tile: stages `*it .. *it + kts` of the ring, four
/// `m64n64k32` each into the tile's 32 accumulators, one group in flight, each stage released by the
/// 4 warps once the group after it was issued (the last at the end, after `wait_group 0`).
///
/// # Safety
/// All 128 threads of the one consumer warpgroup of a `warp_specialized!` CTA whose empty barriers
/// count its 4 warps; the producer issues the same stages ([`issue_stage`]).
#[inline(always)]
pub(super) unsafe fn consume(ring: Ring, it: &mut u32, kts: u32) -> [f32; 32] {
    let mut acc = [0f32; 32];
    // SAFETY: forwarded to the caller: each stage is read after its full barrier and released after
    // the `wgmma`s that read it retired (wait_group 1 after the next group, 0 at the end).
    unsafe {
        for kt in 0..kts {
            ring.wait_full(*it);
            let s_stage = ring.at(*it).0;
            let (d_w, d_x) = (WgmmaDesc::K_MAJOR_SW128.advance(s_stage), WgmmaDesc::K_MAJOR_SW128.advance(s_stage + W_BYTES));
            wgmma_fence_operand(&mut acc);
            wgmma_fence();
            for ks in 0..BK / 32 {
                wgmma_m64n64k32_f32_e4m3(&mut acc, d_w.advance(32 * ks).0, d_x.advance(32 * ks).0, true);
            }
            wgmma_commit_group();
            wgmma_wait_group::<1>();
            wgmma_fence_operand(&mut acc);
            if kt > 0 {
                ring.release_cluster::<1>(*it - 1);
            }
            *it += 1;
        }
        wgmma_wait_group::<0>();
        wgmma_fence_operand(&mut acc);
        if kts > 0 {
            ring.release_cluster::<1>(*it - 1);
        }
    }
    acc
}
