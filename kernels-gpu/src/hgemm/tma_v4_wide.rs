//! Hopper step h4: h3 with a 128×256 tile (each consumer warpgroup 64×256: 4 `m64n64k16` blocks, 128
//! accumulator registers) and one `wgmma` group kept in flight.
//!
//! Diff from h3:
//! * B tile 64 K × 256 N = four 64×64 boxes per stage (stage 48 KiB, 4 stages 192 KiB): each A byte
//!   loaded now feeds twice the MMAs, halving A's global and shared traffic per FLOP.
//! * Consumers commit stage t's 16 `wgmma`s, then `wgmma.wait_group 1` — stage t − 1's group is done, so
//!   *that* stage is released to the producer while stage t's MMAs still run: the tensor cores are never
//!   idle between K tiles waiting for a `wait_group 0`.
//!
//! Prediction: the bigger tile is the main lever (A traffic /2, 2× the MMAs per barrier): ~1.2–1.4× h3.
use super::tma::{A_BYTES, B_HALF_BYTES, BK, BM, a_desc, b_desc, store_block};
use crate::prim::{
    mbarrier::{fence_mbarrier_init, mbarrier_arrive, mbarrier_arrive_expect_tx, mbarrier_init, mbarrier_wait_parity},
    shared::{Align16, addr_of, dynamic},
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, lane_id, thread_idx_x},
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s, prefetch_tensormap},
    wgmma::{setmaxnreg_dec, setmaxnreg_inc, wgmma_commit_group, wgmma_fence, wgmma_fence_operand,
            wgmma_m64n64k16_f32_f16, wgmma_wait_group},
};

/// Columns of C per CTA.
const BN: u32 = 256;
/// B boxes (64 N each) per stage.
const B_BOXES: u32 = BN / 64;
/// Bytes per stage: A 128×64 and B 64×256.
const STAGE_BYTES: u32 = A_BYTES + B_BOXES * B_HALF_BYTES;
/// Stages in the ring.
pub const STAGES: u32 = 4;
/// Consumer warps (two warpgroups): the empty barriers' arrival count.
const CONSUMER_WARPS: u32 = 8;

/// `C = A · B` as [`super::tma_v1_wgmma::hgemm_tma_v1`] with 128×256 tiles, warp-specialized.
///
/// # Safety
/// As h1, but grid `(⌈N/256⌉, ⌈M/128⌉)`, block 384 threads and `STAGES · 48 KiB + 1024 + 16 · STAGES`
/// bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v4(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16,
                                               m: u32, n: u32, k: u32) {
    let s_raw = addr_of(dynamic::<Align16>());
    let s_ring = (s_raw + 1023) & !1023; // 1024-aligned: the 128B pattern's period (48 KiB stages keep it)
    let s_full = s_ring + STAGES * STAGE_BYTES;
    let s_empty = s_full + 8 * STAGES;
    let stage = |t: u32| s_ring + (t % STAGES) * STAGE_BYTES;
    let tid = thread_idx_x();
    let wg = tid / 128;
    let (m0, n0) = (block_idx_y() * BM, block_idx_x() * BN);
    let k_tiles = k.div_ceil(BK);
    // SAFETY: as h3 (same full/empty protocol, same proof), with these differences: a stage holds A and
    // four B boxes, all announced by one expect_tx of STAGE_BYTES; a consumer warp releases stage t − 1
    // only after `wgmma_wait_group::<1>` following the commit of stage t, i.e. after its group for t − 1
    // retired, and the last stage after `wait_group 0`.
    unsafe {
        if tid == 0 {
            prefetch_tensormap(tmap_a);
            prefetch_tensormap(tmap_b);
            for i in 0..STAGES {
                mbarrier_init(s_full + 8 * i, 1);
                mbarrier_init(s_empty + 8 * i, CONSUMER_WARPS);
            }
            fence_mbarrier_init();
        }
        sync_threads();
        if wg == 0 {
            setmaxnreg_dec::<40>();
            if tid == 0 {
                for t in 0..k_tiles {
                    let (s, u) = (t % STAGES, t / STAGES);
                    if u > 0 {
                        mbarrier_wait_parity(s_empty + 8 * s, (u - 1) & 1);
                    }
                    let (bar, k0) = (s_full + 8 * s, (t * BK) as i32);
                    mbarrier_arrive_expect_tx(bar, STAGE_BYTES);
                    cp_async_bulk_tensor_2d_g2s(stage(t), tmap_a, k0, m0 as i32, bar);
                    for nb in 0..B_BOXES {
                        cp_async_bulk_tensor_2d_g2s(stage(t) + A_BYTES + nb * B_HALF_BYTES, tmap_b, (n0 + 64 * nb) as i32, k0, bar);
                    }
                }
            }
        } else {
            setmaxnreg_inc::<232>();
            let mh = wg - 1; // this consumer's 64 rows of the tile
            let mut r_acc = [[0f32; 32]; B_BOXES as usize]; // [nb]
            for t in 0..k_tiles {
                let (s, u) = (t % STAGES, t / STAGES);
                mbarrier_wait_parity(s_full + 8 * s, u & 1);
                let d_a = a_desc(stage(t), mh);
                let (d_b0, d_b1, d_b2, d_b3) = (b_desc(stage(t), 0), b_desc(stage(t), 1), b_desc(stage(t), 2), b_desc(stage(t), 3));
                for acc in r_acc.iter_mut() {
                    wgmma_fence_operand(acc);
                }
                wgmma_fence();
                // Written out per box: indexing the accumulators with a loop variable LLVM does not unroll
                // would put them in local memory (ptxas: a 544-byte stack frame); constant indices cannot.
                let [acc0, acc1, acc2, acc3] = &mut r_acc;
                for ks in 0..BK / 16 {
                    let (da, db) = (d_a.advance(32 * ks).0, 2048 * ks);
                    wgmma_m64n64k16_f32_f16::<0, 1>(acc0, da, d_b0.advance(db).0, true);
                    wgmma_m64n64k16_f32_f16::<0, 1>(acc1, da, d_b1.advance(db).0, true);
                    wgmma_m64n64k16_f32_f16::<0, 1>(acc2, da, d_b2.advance(db).0, true);
                    wgmma_m64n64k16_f32_f16::<0, 1>(acc3, da, d_b3.advance(db).0, true);
                }
                wgmma_commit_group();
                wgmma_wait_group::<1>();
                for acc in r_acc.iter_mut() {
                    wgmma_fence_operand(acc);
                }
                if t > 0 && lane_id() == 0 {
                    mbarrier_arrive(s_empty + 8 * ((t - 1) % STAGES));
                }
            }
            wgmma_wait_group::<0>();
            for acc in r_acc.iter_mut() {
                wgmma_fence_operand(acc);
            }
            let (warp, row0) = ((tid / 32) % 4, m0 + 64 * mh);
            let [acc0, acc1, acc2, acc3] = &r_acc;
            store_block(acc0, g_c, m, n, row0, n0, warp);
            store_block(acc1, g_c, m, n, row0, n0 + 64, warp);
            store_block(acc2, g_c, m, n, row0, n0 + 128, warp);
            store_block(acc3, g_c, m, n, row0, n0 + 192, warp);
        }
    }
}

core::arch::global_asm!(
    "//@entry-directive hgemm_tma_v4 .maxntid 384, 1, 1",
    "//@entry-directive hgemm_tma_v4 .minnctapersm 1",
);
