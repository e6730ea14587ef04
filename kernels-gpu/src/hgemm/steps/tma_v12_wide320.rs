#![cfg(lab_sm90)]
//! Hopper step h12 — h11's CTA on tiles of **128 × 320** (`wgmma.m64n256k16` + `m64n64k16` a K step,
//! five B boxes a stage), for shapes whose 128×256 and 128×192 tiles leave a round mostly empty where
//! 128×320 tiles take a round off.
//!
//! Why: 1024×5120 is 160 tiles of 128×256 on 132 SMs — two rounds for 1.21 rounds of work — and 216 of
//! 128×192, two rounds again; 128 tiles of 128×320 are one round of 1.25× a 256-wide tile's work. The
//! corpus's 5120-wide projections (Qwen-14B, Llama-2-13B) at 1024 and 2048 tokens, 1152–2560-wide ones at
//! 4096–8192 tokens, and 9216–13824-wide ones at 384–768 tokens are such shapes (45 of the corpus's 2,652
//! at ≥ 256 rows). The session-83 sample's bf16 1024×5120×5120 ran h11 at 0.83× cuBLAS. FP8's f27 made
//! the same move (cuBLASLt's `320x128` tiles: 1024×5120×5120 0.77 → 1.01×, session 90).
//!
//! Diff from h11 (`steps/tma_v11_wide192.rs`): a stage is A's 128 rows and **five** B boxes (56 KiB,
//! [`H12_STAGE_BYTES`]), three of them in the ring (a fourth does not fit beside the C staging); each
//! consumer warpgroup runs h6's K loop (`tma_wide_tile::consume_wide_tile`) on `Wide320` accumulators
//! (160 a thread: one `m64n256k16` over boxes 0–3 and one `m64n64k16` over box 4 a K step) and stores
//! its five C boxes two at a time (pairs 0–1, 2–3, then 4: [`H12_STAGED_BOXES`] boxes of staging a
//! consumer, each pair staged once the TMA has read the last).
//!
//! Prediction (before running), H200, bf16: where the width takes a round off, the rounds saved less the
//! wider tile's share — **1.15–1.25× the rules' pick (h11 / h6s4 / h10) at 1024×5120×K and 2048×5120×K**
//! (two rounds of 192 or three of 256 against one or two of 320: 1.2× by the rounds; a 320-wide tile
//! reads A's 16 KiB once per 320 columns, B's boxes as the 256-wide does, and three stages are 168 KiB
//! in flight against h6s4's 192); **0.95–1.0× where it takes as many rounds of wider tiles** (its
//! three-stage ring and the paired C stores against h6s4's four stages).
use super::elem::{Bf16, Elem16, F16};
use super::tma::{A_BYTES, B_HALF_BYTES, BK, BM};
use super::tma_persistent::TileWalk;
use super::tma_store::{stage_c_box, store_tile};
use super::tma_warp_specialized::warp_specialized;
use super::tma_wide_tile::{Wide320, consume_wide_tile};
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    mbarrier::mbarrier_arrive_expect_tx,
    thread::lane_id,
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s, cp_async_bulk_wait_group0},
};
use layout::hopper::tma_hgemm::{C_BOX_BYTES, H12_BN as BN, H12_STAGE_BYTES, H12_STAGED_BOXES, H12_STAGES};

/// A's 128 rows and B's five 64-column boxes of K tile `kt` into the stage at `s_stage`, one
/// transaction on `bar`.
///
/// # Safety
/// One thread; the stage (1024-aligned, [`H12_STAGE_BYTES`]) is free; the tensor maps as h6's (A box
/// 128 × 64, B box 64 × 64, `SWIZZLE_128B`).
#[inline(always)]
unsafe fn issue_stage(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m0: u32, n0: u32, kt: u32) {
    let k0 = (kt * BK) as i32;
    // SAFETY: forwarded to the caller; the six boxes fill disjoint parts of the stage.
    unsafe {
        mbarrier_arrive_expect_tx(bar, H12_STAGE_BYTES);
        cp_async_bulk_tensor_2d_g2s(s_stage, tmap_a, k0, m0 as i32, bar);
        for nb in 0..5 {
            cp_async_bulk_tensor_2d_g2s(s_stage + A_BYTES + nb * B_HALF_BYTES, tmap_b, (n0 + 64 * nb) as i32, k0, bar);
        }
    }
}

/// The body of h12 for element type `E` (the file's doc).
///
/// # Safety
/// As [`hgemm_tma_v12`].
#[inline(always)]
unsafe fn wide320<E: Elem16>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, m: u32, n: u32, k: u32) {
    let staging = H12_STAGED_BOXES * C_BOX_BYTES;
    // SAFETY: the main loop as h11's (producer and consumers walk the same tiles, `TileWalk`, and K
    // tiles, so their ring indices agree; each stage released by all 8 consumer warps before it is
    // refilled). Epilogue: three `store_tile` sequences on each consumer's own 16 KiB (two 8 KiB boxes,
    // rows < 64 and bytes < 128 each); `store_tile` waits until the TMA has read the staging area before
    // it is written again; the issuing thread waits for its stores before exit. Rows ≥ M, columns ≥ N:
    // zero-filled loads, clipped stores.
    unsafe {
        warp_specialized! {
            ring: let (ring, s_cstage) = (H12_STAGES, H12_STAGE_BYTES, 2 * staging);
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
                    let r_acc: Wide320 = consume_wide_tile::<E, _, 1>(ring, &mut it, k_tiles, mh);
                    let ([acc0, acc1, acc2, acc3], acc4) = (&r_acc.head, &r_acc.tail);
                    let (row0, n0) = (tm * BM + 64 * mh, tn * BN);
                    store_tile::<2>(tmap_c, s_c, row0, n0, mh, leader, || {
                        stage_c_box::<E>(acc0, s_c, warp, lane);
                        stage_c_box::<E>(acc1, s_c + C_BOX_BYTES, warp, lane);
                    });
                    store_tile::<2>(tmap_c, s_c, row0, n0 + 128, mh, leader, || {
                        stage_c_box::<E>(acc2, s_c, warp, lane);
                        stage_c_box::<E>(acc3, s_c + C_BOX_BYTES, warp, lane);
                    });
                    store_tile::<1>(tmap_c, s_c, row0, n0 + 256, mh, leader, || {
                        stage_c_box::<E>(acc4, s_c, warp, lane);
                    });
                }
                if leader {
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}

/// h11 on 128×320 tiles (the file's doc): `C (M×N) = A (M×K) · B (K×N)`, f16, f32 accumulation.
///
/// # Safety
/// sm_90a; 384 threads, `H12_DYN_SMEM` bytes of dynamic shared memory, a 1-D grid of at most
/// `⌈M/128⌉·⌈N/320⌉` CTAs; `tmap_a` describes A (M×K f16, box 128 × 64), `tmap_b` B (K×N, box 64 × 64),
/// `tmap_c` C (M×N, box 64 × 64), all `SWIZZLE_128B`, in device memory and valid for the launch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v12(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the body's proof).
    unsafe { wide320::<F16>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

/// [`hgemm_tma_v12`] on bf16.
///
/// # Safety
/// As [`hgemm_tma_v12`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v12_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { wide320::<Bf16>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

launch_bounds!(hgemm_tma_v12, 384, 1);
launch_bounds!(hgemm_tma_v12_bf16, 384, 1);
