//! The per-tensor CTA of the FP8 steps f1 and f5 (introduced by f1, whose file explains it): h6's
//! warp-specialized persistent kernel on e4m3 — 128×256 tiles, `m64n256k32`, the per-tensor scale
//! applied in the bf16 TMA-store epilogue — for one CTA or a cluster of `CLUSTER` sharing B (f5).
use super::tile::{TileWalk, consume_wide, produce};
use crate::hgemm::{
    elem::Bf16,
    tma_store::{consumer_barrier, stage_c_box},
};
use crate::prim::{
    mbarrier::fence_proxy_async_shared_cta,
    thread::lane_id,
    tma::{TensorMap, cp_async_bulk_commit_group, cp_async_bulk_tensor_2d_s2g, cp_async_bulk_wait_group0, cp_async_bulk_wait_group_read0},
};
use layout::fp8::tiles::{BK, BM, F1_BN as BN, F1_C_STAGE_BYTES as C_STAGE_BYTES, F1_STAGE_BYTES as STAGE_BYTES, F1_STAGES as STAGES};

/// `acc · s`, element by element.
#[inline(always)]
fn scaled(acc: &[f32; 32], s: f32) -> [f32; 32] {
    core::array::from_fn(|i| acc[i] * s)
}

/// The per-tensor kernel body: `C = (*scale_a · *scale_b) · qA · qBᵀ` (see `fp8_gemm_v1`), in clusters
/// of `CLUSTER` CTAs.
///
/// # Safety
/// As `fp8_gemm_v1`; with `CLUSTER > 1`, a cluster launch of that size (the kernel's
/// `.reqnctapercluster`), a grid that is a multiple of it, and `tmap_b`'s box `256 / CLUSTER` rows.
#[inline(always)]
pub(super) unsafe fn per_tensor<const CLUSTER: u32>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                                    scale_a: *const f32, scale_b: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: the ring protocol and the epilogue as h6 (same proof: every stage use is issued once by
    // its producer and released once by each consumer warp — of every CTA of the cluster — after its
    // `wgmma`s retired; a staging tile is rewritten only after its previous TMA store finished reading
    // it); the scales are read once; the cluster barriers of `warp_specialized!` bracket every remote
    // access.
    unsafe {
        crate::hgemm::tma_warp_specialized::warp_specialized! {
            cluster: CLUSTER;
            ring: let (ring, s_cstage) = (STAGES, STAGE_BYTES, 2 * C_STAGE_BYTES);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(BM), n.div_ceil(BN));
                let k_tiles = k.div_ceil(BK);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                produce::<BN, CLUSTER>(ring, tmap_a, tmap_b, tiles_m, tiles_n, k_tiles);
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let scale = *scale_a * *scale_b;
                let mut it = 0u32;
                for (tm, tn) in TileWalk::<CLUSTER>::new(tiles_m, tiles_n) {
                    let (row0, n0) = (tm * BM + 64 * mh, tn * BN);
                    let r_acc = consume_wide::<CLUSTER>(ring, &mut it, k_tiles, mh);
                    let s_c = s_cstage + mh * C_STAGE_BYTES;
                    let leader = tid % 128 == 0;
                    if leader {
                        cp_async_bulk_wait_group_read0();
                    }
                    consumer_barrier(mh);
                    // One call per block with a constant accumulator reference (a loop over the blocks put
                    // them in local memory: 512-byte stack frame).
                    let [acc0, acc1, acc2, acc3] = &r_acc;
                    stage_c_box::<Bf16>(&scaled(acc0, scale), s_c, warp, lane);
                    stage_c_box::<Bf16>(&scaled(acc1, scale), s_c + 8192, warp, lane);
                    stage_c_box::<Bf16>(&scaled(acc2, scale), s_c + 2 * 8192, warp, lane);
                    stage_c_box::<Bf16>(&scaled(acc3, scale), s_c + 3 * 8192, warp, lane);
                    fence_proxy_async_shared_cta();
                    consumer_barrier(mh);
                    if leader {
                        for nb in 0..4 {
                            cp_async_bulk_tensor_2d_s2g(tmap_c, (n0 + 64 * nb) as i32, row0 as i32, s_c + nb * 8192);
                        }
                        cp_async_bulk_commit_group();
                    }
                }
                if tid % 128 == 0 {
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}
