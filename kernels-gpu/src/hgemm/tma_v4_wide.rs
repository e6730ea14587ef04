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
use super::tma::{BK, BM, BN_WIDE as BN, WIDE_STAGE_BYTES as STAGE_BYTES, init_rings, issue_wide_stage, mma_wide_stage, store_block};
use crate::prim::{
    mbarrier::{mbarrier_arrive, mbarrier_wait_parity},
    shared::{Align16, addr_of, dynamic},
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, lane_id, thread_idx_x},
    tma::TensorMap,
    wgmma::{setmaxnreg_dec, setmaxnreg_inc, wgmma_fence_operand, wgmma_wait_group},
};

/// Stages in the ring.
pub const STAGES: u32 = 4;

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
            init_rings(s_full, s_empty, STAGES, tmap_a, tmap_b);
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
                    issue_wide_stage(stage(t), s_full + 8 * s, tmap_a, tmap_b, m0, n0, t);
                }
            }
        } else {
            setmaxnreg_inc::<232>();
            let mh = wg - 1; // this consumer's 64 rows of the tile
            let mut r_acc = [[0f32; 32]; 4]; // [nb]: columns 64·nb .. of the tile
            for t in 0..k_tiles {
                let (s, u) = (t % STAGES, t / STAGES);
                mbarrier_wait_parity(s_full + 8 * s, u & 1);
                mma_wide_stage(&mut r_acc, stage(t), mh);
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
