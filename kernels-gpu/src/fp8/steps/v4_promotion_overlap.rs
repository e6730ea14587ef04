#![cfg(lab_sm90)]
//! FP8 step f4: f3 with the **promotion overlapped with the next K block's MMAs**.
//!
//! Diff from f3: two sets of block accumulators (`r_blk0`, `r_blk1`, 64 registers each) used in turn:
//! block `kt`'s four `wgmma`s are issued into one set, *then* `wait_group 1` retires block `kt − 1`'s
//! group (the other set), which is released and promoted while block `kt`'s MMAs run. The warpgroup
//! never waits for its own last group inside the loop (f2/f3: `wait_group 0` every block, the tensor
//! core idle during the promotion unless the other consumer happens to fill it). The scales of block
//! `kt` are loaded when it is issued and used an iteration later (as f3, by construction). The loop is
//! unrolled by two so each set keeps fixed registers. Cost: 64 more registers per consumer thread
//! (~230 of the 232 `setmaxnreg` gives).
//!
//! Prediction: 1.1–1.2× f3.
use crate::fp8::{block_scaled::{ConsumeTile, Scales, block_scaled, promote}, tile::{a_desc, b_desc}};
use crate::hgemm::tma_warp_specialized::Ring;
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    tma::TensorMap,
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_m64n128k32_f32_e4m3, wgmma_wait_group},
};
use layout::fp8::tiles::BK;

/// [`super::v2_block_scaled::fp8_gemm_v2`] with f4's K loop.
///
/// # Safety
/// As `fp8_gemm_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v4(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                             sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the skeleton's proof in `fp8::block_scaled`; this step's K loop below).
    unsafe { block_scaled::<Overlapped>(tmap_a, tmap_b, tmap_c, sa, sb, m, n, k) }
}

/// Waits for stage `it`, then issues its four `m64n128k32` into `r_blk` (the first with `scale-d = 0`)
/// as one committed group, not waited for.
///
/// # Safety
/// All 128 threads of a consumer warpgroup; `r_blk` not read until a wait retires this group.
#[inline(always)]
unsafe fn issue(ring: Ring, it: u32, mh: u32, r_blk: &mut [[f32; 32]; 2]) {
    // SAFETY: forwarded to the caller.
    unsafe {
        ring.wait_full(it);
        let s_stage = ring.at(it).0;
        let (d_a, d_b) = (a_desc(s_stage, mh), b_desc(s_stage));
        for blk in r_blk.iter_mut() {
            wgmma_fence_operand(blk);
        }
        wgmma_fence();
        for ks in 0..BK / 32 {
            wgmma_m64n128k32_f32_e4m3(r_blk, d_a.advance(32 * ks).0, d_b.advance(32 * ks).0, ks > 0);
        }
        wgmma_commit_group();
    }
}

/// Retires the older of (at most) two pending groups — the one that wrote `r_blk` from stage `it` —
/// releases that stage and promotes `r_blk` with its block's `scale`. With `LAST`, waits for all groups.
///
/// # Safety
/// All 128 threads of a consumer warpgroup; `r_blk`'s group is the older pending one (or the only one
/// with `LAST`).
#[inline(always)]
unsafe fn retire<const LAST: bool>(ring: Ring, it: u32, r_acc: &mut [[f32; 32]; 2], r_blk: &mut [[f32; 32]; 2], scale: (f32, f32)) {
    // SAFETY: forwarded to the caller; `r_blk` is pinned after the wait.
    unsafe {
        if LAST { wgmma_wait_group::<0>() } else { wgmma_wait_group::<1>() }
        for blk in r_blk.iter_mut() {
            wgmma_fence_operand(blk);
        }
        ring.release(it);
    }
    promote(r_acc, r_blk, scale);
}

/// f4's K loop: two block-accumulator sets in turn, each block promoted while the next one computes.
struct Overlapped;

impl ConsumeTile for Overlapped {
    #[inline(always)]
    unsafe fn consume(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32, sc: Scales) -> [[f32; 32]; 2] {
        let mut r_acc = [[0f32; 32]; 2];
        let (mut r_blk0, mut r_blk1) = ([[0f32; 32]; 2], [[0f32; 32]; 2]);
        // The scales of the block in each set (assigned when the block is issued).
        let (mut s0, mut s1): ((f32, f32), (f32, f32));
        let base = *it;
        // SAFETY: forwarded to the caller; the scales of block kt < k_tiles only; at most two groups
        // pending, each set rewritten only after its group retired and it was promoted. Block kt lives
        // in set kt % 2; every branch below is uniform across the warpgroup (k_tiles is).
        unsafe {
            if k_tiles > 0 {
                issue(ring, base, mh, &mut r_blk0);
                s0 = sc.of_block(0);
                let mut kt = 1;
                while kt + 1 < k_tiles {
                    issue(ring, base + kt, mh, &mut r_blk1);
                    s1 = sc.of_block(kt);
                    retire::<false>(ring, base + kt - 1, &mut r_acc, &mut r_blk0, s0);
                    issue(ring, base + kt + 1, mh, &mut r_blk0);
                    s0 = sc.of_block(kt + 1);
                    retire::<false>(ring, base + kt, &mut r_acc, &mut r_blk1, s1);
                    kt += 2;
                }
                if kt < k_tiles {
                    issue(ring, base + kt, mh, &mut r_blk1);
                    s1 = sc.of_block(kt);
                    retire::<false>(ring, base + kt - 1, &mut r_acc, &mut r_blk0, s0);
                    retire::<true>(ring, base + kt, &mut r_acc, &mut r_blk1, s1);
                } else {
                    retire::<true>(ring, base + kt - 1, &mut r_acc, &mut r_blk0, s0);
                }
            }
        }
        *it = base + k_tiles;
        r_acc
    }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v4, 384, 1);
