#![cfg(lab_sm90)]
//! Hopper step h1: TMA + `wgmma`, one stage. Not a descendant of `block_v8` but the first rung of the
//! Hopper ladder (issue 6): the data path of `selftest_wgmma_tma` tiled over the whole problem.
//!
//! What changes against the `mma.sync` ladder, and why:
//! * **Loads:** one thread issues three `cp.async.bulk.tensor.2d` per K tile (A 128×64, B 64×64 twice);
//!   the TMA writes them `SWIZZLE_128B` ([`layout::hopper::TmaSwizzle::B128`] = `Swizzle<3,3,4>` on bytes)
//!   and zero-fills what lies outside M, N or K, so ragged edges need no code. An `mbarrier` with the
//!   byte count tells the warpgroup when the tile has landed.
//! * **Math:** 128 threads (one warpgroup) own the 128×128 C tile as 2×2 `wgmma.m64n64k16` accumulators
//!   (128 f32 registers per thread), reading A (K-major) and B (row-major K×N: MN-major, `imm-trans-b`)
//!   straight from shared memory through descriptors — no `ldmatrix`, no fragments in registers.
//! * **One stage:** load, wait, 16 `wgmma`, wait, barrier, next tile. The TMA and the tensor cores take
//!   turns, which is what step h2 (a multistage mbarrier pipeline) removes.
//!
//! Constraints (checked on the host): K and N multiples of 8 (16-byte row strides for the TMA).
use super::tma::{Acc, STAGE_BYTES, BK, BM, BN, issue_stage, mma_stage, store_c};
use crate::prim::{
    mbarrier::{fence_mbarrier_init, mbarrier_init, mbarrier_wait_parity},
    shared::static_alloc_aligned,
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, thread_idx_x},
    tma::{TensorMap, prefetch_tensormap},
};

/// `C = A · B`, f16 in/out, f32 accumulation, row-major; `tmap_a` describes A (M×K, box 64 K × 128 rows),
/// `tmap_b` describes B (K×N, box 64 N × 64 K rows), both `SWIZZLE_128B`.
///
/// # Safety
/// sm_90a; block 128 threads; grid `(⌈N/128⌉, ⌈M/128⌉)`; the tensor maps (in global memory) describe live
/// A and B of this shape; `g_c` has `M·N` writable f16; K and N multiples of 8.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v1(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16,
                                               m: u32, n: u32, k: u32) {
    // One 32 KiB stage (1024-aligned: the 128B pattern's period), then the mbarrier.
    let s_stage = static_alloc_aligned::<{ STAGE_BYTES as usize + 16 }, 1024>();
    let s_bar = s_stage + STAGE_BYTES;
    let tid = thread_idx_x();
    let (m0, n0) = (block_idx_y() * BM, block_idx_x() * BN);
    let mut r_acc: Acc = [[0f32; 32]; 4];
    // SAFETY: thread 0 alone initializes the mbarrier (a block barrier publishes it) and issues each
    // tile's copies after the previous tile's wgmmas have retired in every warp (the sync_threads at the
    // end of the loop), so the TMA never overwrites what a wgmma still reads. Phase kt completes when
    // thread 0 has arrived and the 32 KiB (counted in full, zero-filled out of bounds) have landed;
    // everyone waits on parity kt & 1.
    unsafe {
        if tid == 0 {
            prefetch_tensormap(tmap_a);
            prefetch_tensormap(tmap_b);
            mbarrier_init(s_bar, 1);
            fence_mbarrier_init();
        }
        sync_threads();
        for kt in 0..k.div_ceil(BK) {
            if tid == 0 {
                issue_stage(s_stage, s_bar, tmap_a, tmap_b, m0, n0, kt);
            }
            mbarrier_wait_parity(s_bar, kt & 1);
            mma_stage(&mut r_acc, s_stage);
            sync_threads();
        }
        store_c(&r_acc, g_c, m, n, m0, n0, tid / 32);
    }
}
