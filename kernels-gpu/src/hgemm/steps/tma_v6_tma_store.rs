#![cfg(lab_sm90)]
//! Hopper step h6: h5 with a **TMA-store epilogue**: each consumer warpgroup writes its 64×256 f16 result
//! into shared memory in the TMA's `SWIZZLE_128B` layout and one thread stores it with four
//! `cp.async.bulk.tensor` stores (the TMA clips rows ≥ M and columns ≥ N, so no bounds checks).
//!
//! Diff from h5:
//! * 3 stages instead of 4 (the 2 × 32 KiB C staging tiles must fit beside the ring: 144 + 64 KiB);
//! * epilogue: wait until the previous tile's store has read the staging tile, a warpgroup barrier
//!   (`bar.sync 1 + mh, 128`), `st.shared.b32` of each accumulator pair at
//!   [`layout::hopper::TmaTile2d::smem_byte`] (the same function the CPU tests check against the
//!   documented swizzle), `fence.proxy.async` (generic-proxy writes → the TMA's async proxy), barrier,
//!   then thread 0 of the warpgroup issues the stores and commits them; the kernel waits for them before
//!   exiting.
//! * Bank model: lanes (g, t) of a warp write row g, bytes 16j + 4t of each box: the swizzle sends the 8
//!   rows to 8 different 16-byte chunks, so each `st.shared.b32` is conflict-free (unswizzled it would be
//!   8-way: rows 128 bytes apart).
//!
//! Prediction: consumers leave the epilogue sooner (no 64 scattered global stores per box): ~1.02–1.05× h5.
//! Measured (H200): 97–101% of cuBLAS at 4096³, 98–99% at 8192³ over six runs — the best step; the
//! epilogue's `st.shared` are conflict-free under `ncu` as the model predicts.
use super::tma::{BK, BM, BN_WIDE as BN, WIDE_STAGE_BYTES as STAGE_BYTES};
use super::tma_persistent::{TileWalk, produce_persistent};
use super::tma_warp_specialized::warp_specialized;
use super::elem::{Bf16, Elem16, F16};
use super::tma_wide_tile::consume_wide_tile;
use super::tma_store::store_wide_tile;
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    thread::lane_id,
    tma::{TensorMap, cp_async_bulk_wait_group0},
};

/// Stages in the ring.
pub const STAGES: u32 = layout::hopper::tma_hgemm::H6_STAGES;
use layout::hopper::tma_hgemm::{C_BOX_BYTES, wide_staged_boxes};

/// `C = A · B` as [`super::tma_v5_persistent::hgemm_tma_v5`], storing C through the TMA: `tmap_c`
/// describes C (M×N f16, box 64 × 64, `SWIZZLE_128B`).
///
/// # Safety
/// As h5, with `tmap_c` (in global memory) describing a live, writable C in place of `g_c`, and
/// `STAGES · 48 KiB + 64 KiB + 1024 + 16 · STAGES` bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v6(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                               m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { tma_store::<F16, 1, STAGES>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

/// [`hgemm_tma_v6`] on bf16 A, B and C (`wgmma … .bf16.bf16`, bf16 epilogue); the tensor maps describe
/// bf16 matrices.
///
/// # Safety
/// As [`hgemm_tma_v6`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v6_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                                    m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { tma_store::<Bf16, 1, STAGES>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

/// h6 with 4 stages (`layout::hopper::tma_hgemm::H9S4_STAGES`), its C staged and stored half a
/// consumer tile at a time (`wide_staged_boxes`): the control that separates h9s4's fourth stage
/// from its multicast (`tma_v9_multicast.rs` has the prediction and the measurement). It turned out
/// the better step — 1.03–1.06× h6 at 4096³, 8192³ and the prefill shapes, tensor pipe 90 → 95% at
/// 4096³ — and the `gemm` entry point's choice where it took h6.
///
/// # Safety
/// As [`hgemm_tma_v6`], with `H9S4_DYN_SMEM` bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v6_s4(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                                  m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { tma_store::<F16, 1, { layout::hopper::tma_hgemm::H9S4_STAGES }>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

/// [`hgemm_tma_v6_s4`] on bf16.
///
/// # Safety
/// As [`hgemm_tma_v6_s4`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v6_s4_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                                       m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { tma_store::<Bf16, 1, { layout::hopper::tma_hgemm::H9S4_STAGES }>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

/// The body of h6 for inputs and output of type `E`, with `STAGES` stages, in clusters of `CLUSTER`
/// CTAs (h9: 2) on vertically adjacent tiles that share B by TMA multicast
/// (`tma_wide_tile::issue_wide_stage_cluster`; the walk is `tma_persistent::TileWalk`). With more
/// than 3 stages a consumer stages two of its four C boxes at a time
/// (`layout::hopper::tma_hgemm::wide_staged_boxes`) and stores its result in two halves.
///
/// # Safety
/// As [`hgemm_tma_v6`], with `wide_dyn_smem(STAGES)` bytes of dynamic shared memory; with `CLUSTER = 2`
/// a cluster launch of 2 CTAs along x and an even grid.
#[inline(always)]
pub(super) unsafe fn tma_store<E: Elem16, const CLUSTER: u32, const STAGES: u32>(tmap_a: *const TensorMap, tmap_b: *const TensorMap,
                                                                                 tmap_c: *const TensorMap, m: u32, n: u32, k: u32) {
    // Boxes a consumer stages at once, and its staging area (1024-aligned: the stages are multiples of 1024).
    let staged = wide_staged_boxes(STAGES);
    let staging = staged * C_BOX_BYTES;
    // SAFETY: the main loop as h5 (same proof); with CLUSTER = 2, both CTAs walk the same tile groups
    // and K tiles (`TileWalk`), so their rings agree stage for stage: each stage is filled by both
    // producers (own A, two B boxes each multicast into both) and released by all 16 consumer warps of
    // the pair (empty barriers counting 16: the skeleton's `cluster:` arm) before either refills it; the
    // skeleton's cluster barriers publish the barrier initialization before any remote access and keep
    // both CTAs alive until no peer can arrive or multicast. Epilogue: a consumer's staging area is
    // rewritten only after the thread that issued the previous stores saw them finish reading it
    // (`wait_group.read 0`) and the warpgroup passed named barrier 1 + mh (128 threads, the whole
    // warpgroup); the stores are issued only after every writer's `fence.proxy.async` and a second pass
    // of that barrier (`store_tile`, twice per tile when two boxes are staged at once); all staging
    // writes lie inside the consumer's `staging` bytes (row < 64, byte < 128 per box). The issuing
    // thread waits for its stores before exit. A tile row past M (odd tile rows in a cluster) loads
    // zero-filled A and stores nothing (the TMA clips rows ≥ M).
    unsafe {
        warp_specialized! {
            cluster: CLUSTER;
            // STAGES × 48 KiB stages, the two consumers' C staging, then the full and empty barrier
            // rings (layout: `Ring`).
            ring: let (ring, s_cstage) = (STAGES, STAGE_BYTES, 2 * staging);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(BM), n.div_ceil(BN));
                let k_tiles = k.div_ceil(BK);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                produce_persistent::<CLUSTER>(ring, tmap_a, tmap_b, tiles_m, tiles_n, k_tiles);
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let leader = tid % 128 == 0;
                let mut it = 0u32;
                for (tm, tn) in TileWalk::<CLUSTER>::new(tiles_m, tiles_n) {
                    let (row0, n0) = (tm * BM + 64 * mh, tn * BN);
                    let r_acc = consume_wide_tile::<E, CLUSTER>(ring, &mut it, k_tiles, mh);
                    store_wide_tile::<E>(&r_acc, tmap_c, s_cstage + mh * staging, staged, row0, n0, mh, leader, warp, lane);
                }
                if leader {
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_tma_v6, 384, 1);
launch_bounds!(hgemm_tma_v6_bf16, 384, 1);
launch_bounds!(hgemm_tma_v6_s4, 384, 1);
launch_bounds!(hgemm_tma_v6_s4_bf16, 384, 1);
