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
use crate::prim::{
    mbarrier::{fence_mbarrier_init, mbarrier_arrive_expect_tx, mbarrier_init, mbarrier_wait_parity},
    mma::pack_f16x2,
    shared::static_alloc_aligned,
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, lane_id, thread_idx_x},
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s, prefetch_tensormap},
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_m64n64k16_f32_f16, wgmma_wait_group},
};
use layout::hopper::{DescError, TmaSwizzle, WgmmaDesc};

/// Rows of C per CTA.
const BM: u32 = 128;
/// Columns of C per CTA.
const BN: u32 = 128;
/// K per tile: 64 f16 = 128 bytes, the 128B swizzle span.
const BK: u32 = 64;
/// Bytes of the A tile (128 rows × 128 B) and of one B half (64 K rows × 64 N × 2 B).
const A_BYTES: u32 = BM * BK * 2;
const B_HALF_BYTES: u32 = BK * 64 * 2;

#[inline(always)]
fn desc(d: Result<WgmmaDesc, DescError>) -> WgmmaDesc {
    match d {
        Ok(d) => d,
        // SAFETY: `trap` aborts the kernel; the tile addresses below are 1024-aligned constants, so a
        // descriptor error is a build bug, reported as a failed launch rather than wrong results.
        Err(_) => unsafe { core::arch::nvptx::trap() },
    }
}

/// `C = A · B`, f16 in/out, f32 accumulation, row-major; `tmap_a` describes A (M×K, box 64 K × 128 rows),
/// `tmap_b` describes B (K×N, box 64 N × 64 K rows), both `SWIZZLE_128B`.
///
/// # Safety
/// sm_90a; block 128 threads; grid `(⌈N/128⌉, ⌈M/128⌉)`; the tensor maps (in global memory) describe live
/// A and B of this shape; `g_c` has `M·N` writable f16; K and N multiples of 8.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v1(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16,
                                               m: u32, n: u32, k: u32) {
    // s_a: 16 KiB, s_b: two 8 KiB halves (N columns 0–63 and 64–127), then the mbarrier. All tiles start
    // on 1024-byte boundaries (the 128B pattern's period).
    let s_base = static_alloc_aligned::<{ (A_BYTES + 2 * B_HALF_BYTES) as usize + 16 }, 1024>();
    let (s_a, s_b, s_bar) = (s_base, s_base + A_BYTES, s_base + A_BYTES + 2 * B_HALF_BYTES);
    let tid = thread_idx_x();
    let (m0, n0) = (block_idx_y() * BM, block_idx_x() * BN);
    // A halves (rows 0–63, 64–127 of the tile): K-major, 128-byte rows. B halves: MN-major.
    let d_a = [desc(WgmmaDesc::k_major(s_a, 64, 128, TmaSwizzle::B128)), desc(WgmmaDesc::k_major(s_a + A_BYTES / 2, 64, 128, TmaSwizzle::B128))];
    let d_b = [desc(WgmmaDesc::mn_major_sw128(s_b, BK)), desc(WgmmaDesc::mn_major_sw128(s_b + B_HALF_BYTES, BK))];
    let mut r_acc = [[0f32; 32]; 4]; // [2·mh + nh]
    // SAFETY: thread 0 alone initializes the mbarrier (then a block barrier publishes it) and issues each
    // tile's copies after the previous tile's wgmmas have retired in every warp (the sync_threads at the
    // end of the loop), so the TMA never overwrites shared memory a wgmma still reads. Phase kt completes
    // when thread 0 has arrived and the 32 KiB (always counted in full, zero-filled out of bounds) have
    // landed; everyone waits on parity kt & 1. The accumulators are pinned around the async wgmmas.
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
                let k0 = (kt * BK) as i32;
                mbarrier_arrive_expect_tx(s_bar, A_BYTES + 2 * B_HALF_BYTES);
                cp_async_bulk_tensor_2d_g2s(s_a, tmap_a, k0, m0 as i32, s_bar);
                cp_async_bulk_tensor_2d_g2s(s_b, tmap_b, n0 as i32, k0, s_bar);
                cp_async_bulk_tensor_2d_g2s(s_b + B_HALF_BYTES, tmap_b, n0 as i32 + 64, k0, s_bar);
            }
            mbarrier_wait_parity(s_bar, kt & 1);
            for acc in r_acc.iter_mut() {
                wgmma_fence_operand(acc);
            }
            wgmma_fence();
            for ks in 0..BK / 16 {
                for mh in 0..2 {
                    for nh in 0..2 {
                        // K step ks: 32 bytes along A's K-major rows, 16 rows (2048 B) down B's tile.
                        wgmma_m64n64k16_f32_f16::<0, 1>(&mut r_acc[2 * mh + nh], d_a[mh].advance(32 * ks).0,
                                                         d_b[nh].advance(2048 * ks).0, true);
                    }
                }
            }
            wgmma_commit_group();
            wgmma_wait_group::<0>();
            for acc in r_acc.iter_mut() {
                wgmma_fence_operand(acc);
            }
            sync_threads();
        }

        // Epilogue: each thread's accumulator pairs (two adjacent columns) as one f16x2 store. N is even
        // and the column even, so a pair is either wholly inside N or wholly outside.
        let (warp, lane) = (tid / 32, lane_id());
        let (g, t) = (lane / 4, lane % 4);
        for mh in 0..2u32 {
            for nh in 0..2u32 {
                let acc = &r_acc[(2 * mh + nh) as usize];
                for j in 0..8u32 {
                    for half in 0..2u32 {
                        let row = m0 + 64 * mh + 16 * warp + g + 8 * half;
                        let col = n0 + 64 * nh + 8 * j + 2 * t;
                        if row < m && col < n {
                            let i = (4 * j + 2 * half) as usize;
                            *(g_c.add((row * n + col) as usize) as *mut u32) = pack_f16x2(acc[i], acc[i + 1]);
                        }
                    }
                }
            }
        }
    }
}
