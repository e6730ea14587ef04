#![cfg(lab_sm90)]
//! Hopper step h3: h2's ring, but **warp-specialized**: one producer warpgroup only issues TMA loads, two
//! consumer warpgroups only issue `wgmma`, and `setmaxnreg` moves registers from the first to the others.
//!
//! Diff from h2:
//! * 384 threads = 3 warpgroups. WG0 (producer): `setmaxnreg.dec 40`; one thread loops over K tiles,
//!   waiting for a stage to be **empty** before refilling it. WG1, WG2 (consumers, rows 0–63 and 64–127
//!   of the tile): `setmaxnreg.inc 232`; wait for a stage to be **full**, run 4 K steps × 2 `wgmma`, then
//!   arrive on the stage's empty barrier (one arrival per consumer warp: count 8).
//! * No block-wide barrier inside the K loop: the two mbarrier rings (full, empty) are the only sync, so
//!   the producer runs up to `STAGES` tiles ahead and the consumers never wait on each other.
//! * `.maxntid 384` / `.minnctapersm 1` entry directives (`launch_bounds!`), without which ptxas ignores
//!   `setmaxnreg` (TOOLCHAIN.md §4.4). Budget: 128 · 40 + 256 · 232 = 64 512 ≤ 65 536 registers.
//!
//! The CTA skeleton (ring layout, barrier initialization, role split, `setmaxnreg`) and the ring are
//! `tma_warp_specialized` (`warp_specialized!`, `Ring`), which h4–h6 reuse; this file holds h3's producer
//! loop and its consumers' `m64n64k16` loop.
//!
//! Prediction: removes the per-tile `bar.sync` of all warps and lets load issue run ahead: ~1.1–1.3× h2.
//! Measured (H200): 1.00× h2 at 4096³, 0.92× at 8192³: 384 threads × 168 registers fit one CTA per SM,
//! so specialization only replaces the latency hiding h2 had from three CTAs. It pays at h4's tile size.
use super::tma::{BK, BM, BN, STAGE_BYTES, a_desc, b_desc, issue_stage, store_block};
use super::tma_warp_specialized::warp_specialized;
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    thread::{block_idx_x, block_idx_y},
    tma::TensorMap,
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_m64n64k16_f32_f16, wgmma_wait_group},
};

/// Stages in the ring.
pub const STAGES: u32 = layout::hopper::tma_hgemm::H3_STAGES;

/// `C = A · B` as [`super::tma_v1_wgmma::hgemm_tma_v1`], warp-specialized over a `STAGES`-deep ring.
///
/// # Safety
/// As h1, but block 384 threads and `STAGES · 32 KiB + 1024 + 16 · STAGES` bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v3(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16,
                                               m: u32, n: u32, k: u32) {
    // SAFETY: ring and barriers lie inside the dynamic shared memory (≤ 1024 bytes of slack used for
    // alignment). Thread 0 initializes all barriers before the only block barrier. Tile t uses stage
    // t % STAGES in use u = t / STAGES: the producer refills it only after the empty barrier's phase u - 1
    // completed (all 8 consumer warps retired their wgmmas on use u - 1), and consumers read it only after
    // the full barrier's phase u completed (all 32 KiB landed). setmaxnreg is executed by whole
    // warpgroups with the launch bounds below.
    unsafe {
        warp_specialized! {
            // STAGES × 32 KiB stages, then the full and empty barrier rings (layout: `Ring`).
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
                    issue_stage(s_stage, full, tmap_a, tmap_b, m0, n0, t);
                }
            }
            consumer(mh): { // this consumer's 64 rows of the tile
                let mut r_acc = [[0f32; 32]; 2]; // [nh]
                for t in 0..k_tiles {
                    ring.wait_full(t);
                    let s_stage = ring.at(t).0;
                    let (d_a, d_b) = (a_desc(s_stage, mh), [b_desc(s_stage, 0), b_desc(s_stage, 1)]);
                    for acc in r_acc.iter_mut() {
                        wgmma_fence_operand(acc);
                    }
                    wgmma_fence();
                    for ks in 0..BK / 16 {
                        for nh in 0..2 {
                            wgmma_m64n64k16_f32_f16::<0, 1>(&mut r_acc[nh], d_a.advance(32 * ks).0, d_b[nh].advance(2048 * ks).0, true);
                        }
                    }
                    wgmma_commit_group();
                    wgmma_wait_group::<0>();
                    for acc in r_acc.iter_mut() {
                        wgmma_fence_operand(acc);
                    }
                    ring.release(t);
                }
                let warp = (tid / 32) % 4;
                for nh in 0..2u32 {
                    store_block(&r_acc[nh as usize], g_c, m, n, m0 + 64 * mh, n0 + 64 * nh, warp);
                }
            }
        }
    }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_tma_v3, 384, 1);
