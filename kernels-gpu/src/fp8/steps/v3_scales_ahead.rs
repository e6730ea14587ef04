#![cfg(lab_sm90)]
//! FP8 step f3: f2 with the **scales loaded one K block ahead**.
//!
//! Diff from f2: f2 loads a K block's three scales (`sa` of the thread's two rows, the tile's `sb`)
//! from global memory right after issuing that block's `wgmma`s and needs them right after
//! `wait_group 0`: an L2 round trip (~600–800 cycles under load) against 4 `m64n128k32` (~256 tensor
//! cycles per warpgroup), so the promotion, and with it the release of the stage and the next block's
//! MMAs, waited for the loads. f3 loads block `kb + 1`'s scales while block `kb` computes (three more
//! registers) and the first block's before the loop.
//!
//! Measured f2 (H100): 800 TFLOP/s at 4096³, 42% of the FP8 peak where f1 reaches 68%: about 700 idle
//! cycles per K block, the size of the scale loads' latency. Prediction: 1.3–1.4× f2 (~1050–1100
//! TFLOP/s at 4096³).
//!
//! Measured: the first version multiplied the scales right after loading them and ran at 0.92–0.98× f2
//! — a warp stalls at the first instruction that reads a loaded register, so the multiply waited out
//! the load right there (ncu: 42% of f2's issue stalls on L1TEX). Carrying the raw values and
//! multiplying at the promotion (`Scales::load`): 1.05–1.15× f2, 839–893 TFLOP/s, 78–90% of cuBLASLt's
//! block mode — the best promoted step, the library's block-scaled default. README.
use crate::fp8::{block_scaled::{ConsumeTile, Scales, block_scaled, promote}, tile::{a_desc, b_desc}};
use crate::hgemm::tma_warp_specialized::Ring;
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    tma::TensorMap,
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_m64n128k32_f32_e4m3, wgmma_wait_group},
};
use layout::fp8::tiles::BK;

/// [`super::v2_block_scaled::fp8_gemm_v2`] with f3's K loop.
///
/// # Safety
/// As `fp8_gemm_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v3(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                             sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the skeleton's proof in `fp8::block_scaled`; this step's K loop below).
    unsafe { block_scaled::<ScalesAhead, 1>(tmap_a, tmap_b, tmap_c, sa, sb, m, n, k) }
}

/// f3's K loop: f2's, with block `kt + 1`'s scales loaded while block `kt` computes.
struct ScalesAhead;

impl ConsumeTile for ScalesAhead {
    #[inline(always)]
    unsafe fn consume<const CLUSTER: u32>(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32, sc: Scales) -> [[f32; 32]; 2] {
        let mut r_acc = [[0f32; 32]; 2];
        let mut r_blk = [[0f32; 32]; 2];
        // SAFETY: forwarded to the caller (block 0's scales are read before the loop only because the
        // consumer is called with k_tiles ≥ 1 — `k` ≥ 1 — and block kt + 1's only while kt + 1 < k_tiles);
        // `r_blk` is pinned around the fence and the wait.
        unsafe {
            // Block kt's scales as loaded (multiplied only at its promotion: see `Scales::load`).
            let mut scale = sc.load(0, 0);
            for kt in 0..k_tiles {
                ring.wait_full(*it);
                let s_stage = ring.at(*it).0;
                let (d_a, d_b) = (a_desc(s_stage, mh), b_desc(s_stage));
                for blk in r_blk.iter_mut() {
                    wgmma_fence_operand(blk);
                }
                wgmma_fence();
                for ks in 0..BK / 32 {
                    wgmma_m64n128k32_f32_e4m3(&mut r_blk, d_a.advance(32 * ks).0, d_b.advance(32 * ks).0, ks > 0);
                }
                wgmma_commit_group();
                let next = if kt + 1 < k_tiles { sc.load(kt + 1, 0) } else { scale };
                wgmma_wait_group::<0>();
                for blk in r_blk.iter_mut() {
                    wgmma_fence_operand(blk);
                }
                ring.release_cluster::<CLUSTER>(*it);
                *it += 1;
                promote(&mut r_acc, &r_blk, scale.rows());
                scale = next;
            }
        }
        r_acc
    }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v3, 384, 1);
