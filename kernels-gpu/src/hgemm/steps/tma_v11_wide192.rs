#![cfg(lab_sm90)]
//! Hopper step h11 — h6s4 on tiles of **128 × 192** (`wgmma.m64n192k16`, three B boxes a stage), for
//! shapes whose 128×256 tiles leave the GPU's last wave partly empty where 128×192 tiles fill it.
//!
//! Why: at M = 768, N = 4096 (a prefill chunk of 768 tokens through a 4096-wide projection) h6s4 has
//! 6 × 16 = 96 tiles for 132 SMs — one wave, 27% of the SMs idle — and ran at 77–82% of cuBLAS at
//! K = 4096, 11008 and 14336 (`results/2026-11-26-h100-session27/call10`). 128×192 tiles make 6 × 22 =
//! 132: every SM busy, each tile three quarters of the work. d19's 128×128 tiles (192 of them, two
//! rounds) measured 0.90–0.91× h6s4 there (`call9`).
//!
//! Diff from h6s4 (`tma_store_body::tma_store::<E, 1, 4>`): a stage is A's 128 rows and **three** B
//! boxes (40 KiB, [`H11_STAGE_BYTES`]); each consumer warpgroup runs h6's K loop
//! (`tma_wide_tile::consume_wide_tile`) with `wgmma.m64n192k16` into 96 accumulators
//! (`[[f32; 32]; 3]`: its `WideAcc`) and stages its three C boxes at once (24 KiB each) before one TMA
//! store sequence. The producer and the walk over tiles are h6's, with 192-column tiles.
//!
//! Prediction (before running): per tile 0.75× h6s4's work and one wave instead of one partial wave:
//! **1.2–1.3× h6s4 at 768×4096×K** (the fill model gives 1.33×; a 192-wide `wgmma` reads B's 8 KiB
//! boxes as the 256-wide does, A's 16 KiB once per 192 columns instead of 256); below h6s4 where
//! 128×256 tiles already fill their waves (4096³: 6 rounds of 128×192 against 4 of 128×256).
use super::elem::{Bf16, Elem16, F16};
use super::tma::{A_BYTES, B_HALF_BYTES, BK, BM};
use super::tma_persistent::TileWalk;
use super::tma_store::{stage_c_box, store_tile};
use super::tma_warp_specialized::warp_specialized;
use super::tma_wide_tile::consume_wide_tile;
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    mbarrier::mbarrier_arrive_expect_tx,
    thread::lane_id,
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s, cp_async_bulk_wait_group0},
};
use layout::hopper::tma_hgemm::{C_BOX_BYTES, H11_BN as BN, H11_STAGE_BYTES, H11_STAGES};

/// A's 128 rows and B's three 64-column boxes of K tile `kt` into the stage at `s_stage`, one
/// transaction on `bar`.
///
/// # Safety
/// One thread; the stage (1024-aligned, [`H11_STAGE_BYTES`]) is free; the tensor maps as h6's (A box
/// 128 × 64, B box 64 × 64, `SWIZZLE_128B`).
#[inline(always)]
unsafe fn issue_stage(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m0: u32, n0: u32, kt: u32) {
    let k0 = (kt * BK) as i32;
    // SAFETY: forwarded to the caller; the four boxes fill disjoint parts of the stage.
    unsafe {
        mbarrier_arrive_expect_tx(bar, H11_STAGE_BYTES);
        cp_async_bulk_tensor_2d_g2s(s_stage, tmap_a, k0, m0 as i32, bar);
        for nb in 0..3 {
            cp_async_bulk_tensor_2d_g2s(s_stage + A_BYTES + nb * B_HALF_BYTES, tmap_b, (n0 + 64 * nb) as i32, k0, bar);
        }
    }
}

/// The body of h11 for element type `E` (the file's doc).
///
/// # Safety
/// As [`hgemm_tma_v11`].
#[inline(always)]
unsafe fn wide192<E: Elem16>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, m: u32, n: u32, k: u32) {
    let staging = 3 * C_BOX_BYTES;
    // SAFETY: the main loop as h6's (producer and consumers walk the same tiles, `TileWalk`, and K tiles,
    // so their ring indices agree; each stage released by all 8 consumer warps before it is refilled).
    // Epilogue: `store_tile`'s sequence on each consumer's own 24 KiB (three 8 KiB boxes, rows < 64 and
    // bytes < 128 each); the issuing thread waits for its stores before exit. Rows ≥ M, columns ≥ N:
    // zero-filled loads, clipped stores.
    unsafe {
        warp_specialized! {
            ring: let (ring, s_cstage) = (H11_STAGES, H11_STAGE_BYTES, 2 * staging);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(BM), n.div_ceil(BN));
                let k_tiles = k.div_ceil(BK);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                let mut it = 0u32;
                for (tm, tn) in TileWalk::<1>::new(tiles_m, tiles_n) {
                    for kt in 0..k_tiles {
                        ring.wait_empty(it);
                        let (s_stage, full, _, _) = ring.at(it);
                        issue_stage(s_stage, full, tmap_a, tmap_b, tm * BM, tn * BN, kt);
                        it += 1;
                    }
                }
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let leader = tid % 128 == 0;
                let s_c = s_cstage + mh * staging;
                let mut it = 0u32;
                for (tm, tn) in TileWalk::<1>::new(tiles_m, tiles_n) {
                    let r_acc: [[f32; 32]; 3] = consume_wide_tile::<E, _, 1>(ring, &mut it, k_tiles, mh);
                    let [acc0, acc1, acc2] = &r_acc;
                    store_tile::<3>(tmap_c, s_c, tm * BM + 64 * mh, tn * BN, mh, leader, || {
                        stage_c_box::<E>(acc0, s_c, warp, lane);
                        stage_c_box::<E>(acc1, s_c + C_BOX_BYTES, warp, lane);
                        stage_c_box::<E>(acc2, s_c + 2 * C_BOX_BYTES, warp, lane);
                    });
                }
                if leader {
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}

/// h6s4 on 128×192 tiles (the file's doc): `C (M×N) = A (M×K) · B (K×N)`, f16, f32 accumulation.
///
/// # Safety
/// sm_90a; 384 threads, `H11_DYN_SMEM` bytes of dynamic shared memory, a 1-D grid of at most
/// `⌈M/128⌉·⌈N/192⌉` CTAs; `tmap_a` describes A (M×K f16, box 128 × 64), `tmap_b` B (K×N, box 64 × 64),
/// `tmap_c` C (M×N, box 64 × 64), all `SWIZZLE_128B`, in device memory and valid for the launch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v11(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the body's proof).
    unsafe { wide192::<F16>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

/// [`hgemm_tma_v11`] on bf16.
///
/// # Safety
/// As [`hgemm_tma_v11`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v11_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { wide192::<Bf16>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

launch_bounds!(hgemm_tma_v11, 384, 1);
launch_bounds!(hgemm_tma_v11_bf16, 384, 1);
