#![cfg(lab_sm90)]
//! FP8 step f7: block scales on **f1's 128×256 tiles**, promoted half by half.
//!
//! Diff from f4 (and f1): f2–f6 promote on 128×128 tiles because a 64×256 consumer needs 128
//! accumulator registers and a second set for the block's sums would make 256. f7 keeps f1's tile —
//! half the L2 and shared-memory bytes per MMA of f4's for A — and splits each K block's MMAs into two
//! halves of 128 columns: four `m64n128k32` for columns 0–127 into one 64-register block set, wait,
//! promote into accumulators 0–1 with that half's B scale, then the same for columns 128–255 into
//! accumulators 2–3 (the B tile's rows 128–255, 16 KiB further in the stage). 128 + 64 accumulator
//! registers. Each half is exactly one B scale block (tiles start on multiples of 256), so the
//! promotion needs `sb[nb]` and `sb[nb + 1]`; each half's scales are loaded while its MMAs run and first
//! used after the wait (loading them a block ahead as f3 does spilled: 192 accumulator registers).
//!
//! As in f2, each promotion waits for its own MMAs (`wait_group 0`), twice per K block; the two
//! consumer warpgroups fill each other's gaps.
//!
//! Prediction: f4 sits at ~850 TFLOP/s with ncu reporting L2 throughput 72% and the tensor pipe 54%
//! (f1: 47% and 80%). With f1's tile the L2 bytes per MMA fall by a quarter, and the MMA work per
//! promotion doubles: ~1.2× f4 (1000–1050 TFLOP/s at 4096³–8192³).
//!
//! Measured: 0.92–0.97× f4 (758–842 TFLOP/s); prediction missed. README.
use crate::fp8::{
    block_scaled::{Scales, promote_pair},
    tile::{a_desc, b_desc},
    wide::{WideLoop, wide},
};
use crate::hgemm::tma_warp_specialized::Ring;
use crate::launch_bounds::launch_bounds;
use layout::fp8::tiles::F1_STAGES;
use crate::prim::{
    tma::TensorMap,
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_m64n128k32_f32_e4m3, wgmma_wait_group},
};
use layout::fp8::tiles::BK;

/// Block-scaled `C` as [`super::v2_block_scaled::fp8_gemm_v2`], on 128×256 tiles: tensor maps as
/// [`super::v1_per_tensor::fp8_gemm_v1`]'s (B's box 256 rows), `sa` and `sb` as f2's.
///
/// # Safety
/// As `fp8_gemm_v2`, with `F1_DYN_SMEM` bytes of dynamic shared memory and B's box 256 rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v7(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                             sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the skeleton's proof is `fp8::wide`'s; this step's K loop below).
    unsafe { wide::<Halves, 1, F1_STAGES>(tmap_a, tmap_b, tmap_c, sa, sb, m, n, k) }
}

/// f7's K loop: per K block, two halves of 128 columns, each computed into `r_blk` and promoted.
struct Halves;

impl WideLoop for Halves {
    #[inline(always)]
    unsafe fn consume<const CLUSTER: u32>(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32, sc: Scales) -> [[f32; 32]; 4] {
        let mut r_acc = [[0f32; 32]; 4];
        let mut r_blk = [[0f32; 32]; 2];
        // SAFETY: forwarded to the caller; `r_blk` is pinned around every fence and wait and rewritten
        // only after the previous half was promoted; the stage is released after both halves' MMAs
        // retired; scale reads: kt < k_tiles, a half whose columns start past N reading the tile's first
        // block instead (`Scales::load`).
        unsafe {
            let [acc0, acc1, acc2, acc3] = &mut r_acc;
            for kt in 0..k_tiles {
                ring.wait_full(*it);
                let s_stage = ring.at(*it).0;
                let d_a = a_desc(s_stage, mh);
                for half in 0..2u32 {
                    // Rows 128·half .. of the B tile: 16 groups of 8 rows × 1024 B further.
                    let d_b = b_desc(s_stage).advance(half * 128 * BK);
                    for blk in r_blk.iter_mut() {
                        wgmma_fence_operand(blk);
                    }
                    wgmma_fence();
                    for ks in 0..BK / 32 {
                        wgmma_m64n128k32_f32_e4m3(&mut r_blk, d_a.advance(32 * ks).0, d_b.advance(32 * ks).0, ks > 0);
                    }
                    wgmma_commit_group();
                    // Loaded while the half's MMAs run, first used after the wait (see `Scales::load`).
                    let scale = sc.load(kt, 128 * half);
                    wgmma_wait_group::<0>();
                    for blk in r_blk.iter_mut() {
                        wgmma_fence_operand(blk);
                    }
                    if half == 0 {
                        promote_pair(acc0, acc1, &r_blk, scale.rows());
                    } else {
                        ring.release_cluster::<CLUSTER>(*it);
                        promote_pair(acc2, acc3, &r_blk, scale.rows());
                    }
                }
                *it += 1;
            }
        }
        r_acc
    }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v7, 384, 1);
