//! The three-consumer CTA of the per-tensor FP8 steps f17 and f18 (introduced by f17, whose file
//! explains it): 192×192 tiles, the producer warpgroup and three consumer warpgroups of 64 rows (512
//! threads), each consumer's 64×192 result through its own C staging, with `STAGES` stages — three
//! beside all three boxes of every consumer (f17), or four beside one box each, the boxes staged and
//! stored in turn (f18). And the block-scaled twin of it, f19: 192×128 tiles whose stages carry their
//! K block's scales (f15's way), each consumer promoting its own 64×128 every K block.
use super::block_scaled::{issue_rows, promote, retire_all};
use super::tile::{Accumulators, TileWalk, consume_whole_k, issue_stage_rows, produce_rows};
use crate::hgemm::{
    elem::Bf16,
    tma_store::{stage_c_box, store_tile_of},
    tma_warp_specialized::Ring,
};
use crate::prim::{
    mbarrier::mbarrier_expect_tx,
    shared::{ld_shared_f32, st_shared_f32},
    sync::sync_warp,
    thread::lane_id,
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s, cp_async_bulk_wait_group0},
};
use layout::fp8::scale_b_index;
use layout::fp8::tiles::{BK, F17_BM as BM, F17_BN as BN, F17_CONSUMER_REGS, F17_CONSUMERS as CONSUMERS, F17_PRODUCER_REGS, F17_STAGE_BYTES, F17_STAGES, F19_BN,
                         F19_C_STAGE_BYTES, F19_CONSUMER_REGS, F19_PRODUCER_REGS, F19_SCALE_SLOT_B, F19_STAGE_BYTES, F19_STAGES};
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
            consumers: CONSUMERS, registers: (F17_PRODUCER_REGS, F17_CONSUMER_REGS);
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

/// The scale slot of a f19/f20 stage at `s_stage`: after A's 192 and B's 128 rows.
#[inline(always)]
fn scale_slot(s_stage: u32) -> u32 {
    s_stage + (BM + F19_BN) * BK
}

/// The B scale of K block `kt` for f19's tile column `tn` (loaded by the producer before it waits for
/// the stage, which hides the latency: f15's order).
///
/// # Safety
/// `sb` holds B's block scales for N×K (`layout::fp8::scale_b_index`); `tn · 128 < n`, `kt · 128 < k`.
#[inline(always)]
pub(super) unsafe fn block_scale_b(sb: *const f32, tn: u32, kt: u32, k: u32) -> f32 {
    // SAFETY: inside `sb` (caller).
    unsafe { *sb.add(scale_b_index(tn * F19_BN, kt * BK, k) as usize) }
}

/// Issues stage `kt` of f19's 192×128 tile `(tm, tn)` into `s_stage` with its scales: the B scale `b`
/// stored in the slot, the A scales' 768 bytes expected and their box issued, then A's and B's boxes
/// (`issue_stage_rows`, whose `arrive.expect_tx` is the phase's one arrival: a release that publishes
/// the stored scale).
///
/// # Safety
/// One thread (the producer); the stage's previous use released; `full` its full barrier, expecting one
/// arrival; tensor maps as `fp8_gemm_v19` states; `kt < ⌈k/128⌉`, `(tm, tn)` a tile of the shape.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn issue_block_stage(s_stage: u32, full: u32, b: f32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_sa: *const TensorMap,
                                       tm: u32, tn: u32, kt: u32) {
    // SAFETY: forwarded to the caller; the expectation precedes the box and the arrival, so the phase
    // cannot complete without it; the box (row kt, columns tm · 192 ..) is inside the map but for columns
    // past M, which it zero-fills; its 768 bytes and the scale after them fit the 1 KiB slot.
    unsafe {
        st_shared_f32(scale_slot(s_stage) + F19_SCALE_SLOT_B, b);
        mbarrier_expect_tx(full, BM * 4);
        cp_async_bulk_tensor_2d_g2s(scale_slot(s_stage), tmap_sa, (tm * BM) as i32, kt as i32, full);
        issue_stage_rows::<BM, F19_BN, 1>(s_stage, full, tmap_a, tmap_b, tm * BM, tn * F19_BN, kt, 0);
    }
}

/// Consumer warpgroup `mh`'s K loop over `k_tiles` stages of one f19 tile: per stage its two rows' A
/// scales and the tile's B scale read from the slot, four `m64n128k32` into fresh registers, `wait 0`,
/// the stage released, the block promoted. Returns its 64×128, advances `it` by `k_tiles`.
///
/// # Safety
/// All 128 threads of consumer warpgroup `mh < 3`; the ring of f19's stages initialized; the producer
/// issues the same stages with [`issue_block_stage`]; `warp`, `lane` this thread's.
#[inline(always)]
pub(super) unsafe fn consume_block(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32, warp: u32, lane: u32) -> [[f32; 32]; 2] {
    // This thread's two accumulator rows in the tile (fragment rows g and g + 8 of its warp's 16).
    let r = 64 * mh + 16 * warp + lane / 4;
    let mut r_acc = [[0f32; 32]; 2];
    let mut r_blk = [[0f32; 32]; 2];
    // SAFETY: forwarded to the caller; the slot is read after `issue_rows`' full-barrier wait and before
    // this warp's release (`sync_warp`, then `retire_all`: lane 0 arrives after every lane's reads), so
    // the producer's next write of it follows them; r + 8 < 192.
    unsafe {
        for _ in 0..k_tiles {
            let cur = *it;
            let mut sc = (0f32, 0f32, 0f32);
            issue_rows::<_, BM>(ring, cur, mh, &mut r_blk, || {
                let s = scale_slot(ring.at(cur).0);
                sc = (ld_shared_f32(s + 4 * r), ld_shared_f32(s + 4 * (r + 8)), ld_shared_f32(s + F19_SCALE_SLOT_B));
            });
            sync_warp();
            retire_all::<_, 1>(ring, cur, &mut r_blk);
            *it += 1;
            let (a_lo, a_hi, b) = sc;
            promote(&mut r_acc, &r_blk, (a_lo * b, a_hi * b));
        }
    }
    r_acc
}

/// f19's body: `C (M×N, bf16) = dequant(A) · dequant(B)ᵀ` with block scales over 192×128 tiles, three
/// consumers, four stages that each carry their K block's scales — the 192 A scales of the tile's rows
/// by a TMA box of `tmap_sa` (`sa` as ⌈K/128⌉ rows of M f32, box 1 × 192) and the tile's one B scale
/// written by the producer thread — after A (192 rows) and B (128 rows).
///
/// # Safety
/// As `fp8_gemm_v15` with the boxes of this tile (A 192 rows, B 128 rows, `sa` 192 values), 512
/// threads, `F19_DYN_SMEM` bytes of dynamic shared memory.
#[inline(always)]
pub(super) unsafe fn tall_block_scaled(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, tmap_sa: *const TensorMap,
                                       sb: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: the ring protocol and the epilogue as `tall` (12 consumer warps release each stage use);
    // the stages and their scale slots as `issue_block_stage` and `consume_block` state, producer and
    // consumers walking the same tiles and K tiles.
    unsafe {
        crate::hgemm::tma_warp_specialized::warp_specialized! {
            consumers: CONSUMERS, registers: (F19_PRODUCER_REGS, F19_CONSUMER_REGS);
            ring: let (ring, s_cstage) = (F19_STAGES, F19_STAGE_BYTES, CONSUMERS * F19_C_STAGE_BYTES);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(BM), n.div_ceil(F19_BN));
                let k_tiles = k.div_ceil(BK);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                let mut it = 0u32;
                for (tm, tn) in TileWalk::<1>::new(tiles_m, tiles_n) {
                    for kt in 0..k_tiles {
                        let (s_stage, full, _, _) = ring.at(it);
                        let b = block_scale_b(sb, tn, kt, k);
                        ring.wait_empty(it);
                        issue_block_stage(s_stage, full, b, tmap_a, tmap_b, tmap_sa, tm, tn, kt);
                        it += 1;
                    }
                }
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let s_c = s_cstage + mh * F19_C_STAGE_BYTES;
                let leader = tid % 128 == 0;
                let mut it = 0u32;
                for (tm, tn) in TileWalk::<1>::new(tiles_m, tiles_n) {
                    let r_acc = consume_block(ring, &mut it, k_tiles, mh, warp, lane);
                    store_tile_of::<2, CONSUMERS>(tmap_c, s_c, tm * BM + 64 * mh, tn * F19_BN, mh, leader, || r_acc.stage(s_c, warp, lane));
                }
                if leader {
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}
