#![cfg(lab_sm90)]
//! Hopper step h4: h3 with a 128×256 tile (each consumer warpgroup 64×256: one `wgmma.m64n256k16` per
//! K step, 128 accumulator registers) and one `wgmma` group kept in flight.
//!
//! Diff from h3:
//! * B tile 64 K × 256 N = four 64×64 boxes per stage (stage 48 KiB, 4 stages 192 KiB): each A byte
//!   loaded now feeds twice the MMAs, halving A's global and shared traffic per FLOP; one descriptor
//!   spans the four boxes (LBO = one box, `layout::hopper` test `n256_descriptor_spans_four_boxes`), so
//!   the tensor cores read each A row once per 256 columns instead of once per 64.
//! * Consumers commit stage t's 4 `wgmma`s, then `wgmma.wait_group 1` — stage t − 1's group is done, so
//!   *that* stage is released to the producer while stage t's MMAs still run: the tensor cores are never
//!   idle between K tiles waiting for a `wait_group 0`.
//!
//! The wide stage's loads and MMAs and the consumers' K loop are `tma_wide_tile` (h5 and h6 reuse them);
//! the skeleton is h3's `warp_specialized!`.
//!
//! Prediction: the bigger tile is the main lever (A traffic /2, 2× the MMAs per barrier): ~1.2–1.4× h3.
//! Measured (H200): 1.09× at 4096³, 1.21× at 8192³. The first version (4 × `m64n64k16` per K step, and
//! a descriptor range check that left a `trap` branch in the K loop) ran at 0.84×: ptxas serialized every
//! `wgmma` (warning C7518). See the ladder README.
use super::tma::{BK, BM, BN_WIDE as BN, WIDE_STAGE_BYTES as STAGE_BYTES};
use super::tma_warp_specialized::warp_specialized;
use super::elem::F16;
use super::tma_wide_tile::{consume_wide_tile, issue_wide_stage, store_wide};
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    thread::{block_idx_x, block_idx_y},
    tma::TensorMap,
};

/// Stages in the ring.
pub const STAGES: u32 = layout::hopper::tma_hgemm::H4_STAGES;

/// `C = A · B` as [`super::tma_v1_wgmma::hgemm_tma_v1`] with 128×256 tiles, warp-specialized.
///
/// # Safety
/// As h1, but grid `(⌈N/256⌉, ⌈M/128⌉)`, block 384 threads and `STAGES · 48 KiB + 1024 + 16 · STAGES`
/// bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v4(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16,
                                               m: u32, n: u32, k: u32) {
    // SAFETY: as h3 (same full/empty protocol, same proof), with these differences: a stage holds A and
    // four B boxes, all announced by one expect_tx of STAGE_BYTES; a consumer warp releases stage t − 1
    // only after `wgmma_wait_group::<1>` following the commit of stage t, i.e. after its group for t − 1
    // retired, and the last stage after `wait_group 0`.
    unsafe {
        warp_specialized! {
            // STAGES × 48 KiB stages, then the full and empty barrier rings (layout: `Ring`).
            ring: let (ring, _) = (STAGES, STAGE_BYTES, 0);
            thread: tid, warpgroup: wg;
            setup: {
                let (m0, n0) = (block_idx_y() * BM, block_idx_x() * BN);
                let k_tiles = k.div_ceil(BK);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                for t in 0..k_tiles {
                    let (s_stage, full, _, _) = ring.at(t);
                    ring.wait_empty(t);
                    issue_wide_stage(s_stage, full, tmap_a, tmap_b, m0, n0, t);
                }
            }
            consumer(mh): { // this consumer's 64 rows of the tile
                // The K loop (`tma_wide_tile`, shared with h5/h6): commit stage t's wgmmas, `wait_group 1` (stage
                // t − 1's group is done), release stage t − 1, go on; `wait_group 0` after the last.
                let r_acc = consume_wide_tile::<F16, [[f32; 32]; 4], 1>(ring, &mut 0, k_tiles, mh);
                store_wide(&r_acc, g_c, m, n, m0 + 64 * mh, n0, (tid / 32) % 4);
            }
        }
    }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_tma_v4, 384, 1);
