#![cfg(lab_sm90)]
//! FP8 step f17: per-tensor scales on **192×192 tiles with three consumer warpgroups** — the tile
//! cuBLASLt itself runs at 2048×11008×4096 (`nvjet_sm90_qqtst_192x192_128x4_2x1_v_bz_coopB`).
//!
//! Diff from f12: the CTA has 512 threads — the producer warpgroup and three consumers of 64 rows each
//! (`warp_specialized!`'s `consumers:` arm: empty barriers of 12 warps, `setmaxnreg` 40 / 152,
//! `layout::fp8::tiles::F17_CONSUMER_REGS`); a stage holds A's 192 rows and B's 192 rows (48 KiB, as
//! f12's); each consumer issues four `wgmma.m64n192k32` per stage into 96 accumulator registers
//! (`tile::consume_whole_k`, f1's loop) and stages its 64×192 result as three boxes at once
//! (`store_tile_of::<3, 3>`: named barriers 1–3). Three stages fit beside the 72 KiB of C staging, not
//! four.
//!
//! Why: f14 trails cuBLASLt only at 2048×11008×4096 (97.6% of its default mode, session 16), and `ncu`
//! (session 18) put the loss in the last wave, not in the SMs' average time: 688 tiles of 128×256 are
//! 5.21 waves of 132, so the sixth runs 28 tiles and the stream-K tail recovers almost nothing (1.002×
//! f12). 638 tiles of 192×192 are 4.83 waves: a fifth wave 83% full. The useful fraction of the
//! tile-waves (M·N over waves · 132 · tile area) goes from 0.868 to 0.926. Per K block the shared-memory
//! traffic per MMA is f12's: the TMA writes (192 + 192) · 128 bytes and the three consumers' `wgmma`s read
//! 3 · (64 + 192) · 128, against f12's (128 + 256) · 128 and 2 · (64 + 256) · 128 for the same 36864 vs
//! 32768 outputs: 1152 against 1024 cycles at 128 B/cycle for 1.125× the work.
//!
//! Prediction (before any run): **1.04–1.07× f14 at 2048×11008×4096** (the wave fraction 1.067×, less up
//! to 3% for one stage fewer and three warpgroups' epilogue barriers), i.e. 101–104% of cuBLASLt's
//! default mode there; slower than f14 where 128×256 tiles fill their waves better (4096³: 0.862 against
//! 0.970 of the tile-waves useful, so ~0.89×), which is why the library picks between them by the same
//! wave arithmetic (`host::steps::fp8::per_tensor_step_for`).
use crate::fp8::tile::{Accumulators, TileWalk, consume_whole_k, produce_rows};
use crate::hgemm::tma_store::store_tile_of;
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    thread::lane_id,
    tma::{TensorMap, cp_async_bulk_wait_group0},
};
use layout::fp8::tiles::{BK, F17_BM as BM, F17_BN as BN, F17_C_STAGE_BYTES as C_STAGE, F17_CONSUMER_REGS, F17_CONSUMERS as CONSUMERS, F17_STAGE_BYTES,
                         F17_STAGES};

/// `acc *= s`, element by element.
#[inline(always)]
fn scale(acc: &mut [f32; 32], s: f32) {
    for v in acc.iter_mut() {
        *v *= s;
    }
}

/// `C (M×N, bf16) = scale_a · scale_b · qA · qBᵀ` over 192×192 tiles: `tmap_a` over A (M×K e4m3, box
/// 192 rows × 128), `tmap_b` over B (N×K e4m3, box 192 rows × 128), both `SWIZZLE_128B`; `tmap_c` over C
/// (M×N bf16, 64×64 boxes, `SWIZZLE_128B`); `scale_a`, `scale_b` one f32 each. 512 threads, a 1-D
/// persistent grid of at most one CTA per tile, `F17_DYN_SMEM` bytes of dynamic shared memory.
///
/// # Safety
/// The tensor maps describe those buffers with those boxes (the TMA zero-fills reads past M, N and K
/// and clips stores past M and N); the scale pointers are valid; the launch as stated.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v17(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                              scale_a: *const f32, scale_b: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: the ring protocol and the epilogue as f1 (every stage use is issued once by the producer
    // and released once by each of the 12 consumer warps after its `wgmma`s retired — the empty
    // barriers count 12; a staging area is rewritten only after its previous TMA store read it); the
    // stage is 192 + 192 rows of 128 bytes, as `produce_rows::<192, 192, 1>` fills it and
    // `consume_whole_k::<_, 192, 1>` reads it (consumer `mh` reads A rows 64·mh ..); each consumer's
    // staging area is its own 24 KiB (`C_STAGE`, 1024-aligned after the 48 KiB stages) and its named
    // barrier its own (1 + mh).
    unsafe {
        crate::hgemm::tma_warp_specialized::warp_specialized! {
            consumers: CONSUMERS, registers: F17_CONSUMER_REGS;
            ring: let (ring, s_cstage) = (F17_STAGES, F17_STAGE_BYTES, CONSUMERS * C_STAGE);
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
                let s_c = s_cstage + mh * C_STAGE;
                let mut it = 0u32;
                for (tm, tn) in TileWalk::<1>::new(tiles_m, tiles_n) {
                    let mut r_acc = consume_whole_k::<[[f32; 32]; 3], BM, 1>(ring, &mut it, k_tiles, mh);
                    let [acc0, acc1, acc2] = &mut r_acc;
                    scale(acc0, s);
                    scale(acc1, s);
                    scale(acc2, s);
                    store_tile_of::<3, CONSUMERS>(tmap_c, s_c, tm * BM + 64 * mh, tn * BN, mh, tid % 128 == 0, || r_acc.stage(s_c, warp, lane));
                }
                if tid % 128 == 0 {
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}

// 512 threads, one CTA per SM: ptxas holds every thread to 128 registers at launch, and `setmaxnreg`
// moves them to the consumers.
launch_bounds!(fp8_gemm_v17, 512, 1);
