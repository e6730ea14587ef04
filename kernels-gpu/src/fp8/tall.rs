//! The three-consumer CTA of the per-tensor FP8 steps f17 and f18 (introduced by f17, whose file
//! explains it): 192×192 tiles, the producer warpgroup and three consumer warpgroups of 64 rows (512
//! threads), each consumer's 64×192 result through its own C staging, with `STAGES` stages — three
//! beside all three boxes of every consumer (f17), or four beside one box each, the boxes staged and
//! stored in turn (f18).
use super::tile::{Accumulators, TileWalk, consume_whole_k, produce_rows};
use crate::hgemm::{
    elem::Bf16,
    tma_store::{stage_c_box, store_tile_of},
};
use crate::prim::{
    thread::lane_id,
    tma::{TensorMap, cp_async_bulk_wait_group0},
};
use layout::fp8::tiles::{BK, F17_BM as BM, F17_BN as BN, F17_CONSUMER_REGS, F17_CONSUMERS as CONSUMERS, F17_STAGE_BYTES, F17_STAGES};
use layout::hopper::tma_hgemm::C_BOX_BYTES;

/// `acc *= s`, element by element.
#[inline(always)]
fn scale(acc: &mut [f32; 32], s: f32) {
    for v in acc.iter_mut() {
        *v *= s;
    }
}

/// `C (M×N, bf16) = scale_a · scale_b · qA · qBᵀ` over 192×192 tiles with `STAGES` stages (3: the three
/// boxes of a consumer's result staged at once; 4: one at a time), maps and scales as `fp8_gemm_v17`
/// states.
///
/// # Safety
/// As `fp8_gemm_v17`, with `layout::fp8::tiles::F17_DYN_SMEM` (3 stages) or `F18_DYN_SMEM` (4) bytes of
/// dynamic shared memory.
#[inline(always)]
pub(super) unsafe fn tall<const STAGES: u32>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, scale_a: *const f32,
                                            scale_b: *const f32, m: u32, n: u32, k: u32) {
    const { assert!(STAGES == F17_STAGES || STAGES == F17_STAGES + 1, "3 stages beside three boxes a consumer, or 4 beside one") };
    // Boxes a consumer stages at once, and its staging area.
    let staged = if STAGES == F17_STAGES { BN / 64 } else { 1 };
    let c_stage = staged * C_BOX_BYTES;
    // SAFETY: the ring protocol and the epilogue as f1 (every stage use is issued once by the producer
    // and released once by each of the 12 consumer warps after its `wgmma`s retired — the empty
    // barriers count 12; a staging area is rewritten only after its previous TMA store read it, each
    // box round waiting for the last); the stage is 192 + 192 rows of 128 bytes, as
    // `produce_rows::<192, 192, 1>` fills it and `consume_whole_k::<_, 192, 1>` reads it (consumer `mh`
    // reads A rows 64·mh ..); each consumer's staging area is its own (`c_stage`, 1024-aligned after
    // the 48 KiB stages) and its named barrier its own (1 + mh).
    unsafe {
        crate::hgemm::tma_warp_specialized::warp_specialized! {
            consumers: CONSUMERS, registers: F17_CONSUMER_REGS;
            ring: let (ring, s_cstage) = (STAGES, F17_STAGE_BYTES, CONSUMERS * c_stage);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(BM), n.div_ceil(BN));
                let k_tiles = k.div_ceil(BK);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                produce_rows::<BM, BN, 1>(ring, tmap_a, tmap_b, tiles_m, tiles_n, k_tiles);
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let s = *scale_a * *scale_b;
                let s_c = s_cstage + mh * c_stage;
                let leader = tid % 128 == 0;
                let mut it = 0u32;
                for (tm, tn) in TileWalk::<1>::new(tiles_m, tiles_n) {
                    let mut r_acc = consume_whole_k::<[[f32; 32]; 3], BM, 1>(ring, &mut it, k_tiles, mh);
                    let (row0, n0) = (tm * BM + 64 * mh, tn * BN);
                    let [acc0, acc1, acc2] = &mut r_acc;
                    scale(acc0, s);
                    scale(acc1, s);
                    scale(acc2, s);
                    if STAGES == F17_STAGES {
                        store_tile_of::<3, CONSUMERS>(tmap_c, s_c, row0, n0, mh, leader, || r_acc.stage(s_c, warp, lane));
                    } else {
                        // One constant accumulator reference per box (see `Accumulators::stage`).
                        let [acc0, acc1, acc2] = &r_acc;
                        store_tile_of::<1, CONSUMERS>(tmap_c, s_c, row0, n0, mh, leader, || stage_c_box::<Bf16>(acc0, s_c, warp, lane));
                        store_tile_of::<1, CONSUMERS>(tmap_c, s_c, row0, n0 + 64, mh, leader, || stage_c_box::<Bf16>(acc1, s_c, warp, lane));
                        store_tile_of::<1, CONSUMERS>(tmap_c, s_c, row0, n0 + 128, mh, leader, || stage_c_box::<Bf16>(acc2, s_c, warp, lane));
                    }
                }
                if leader {
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}
