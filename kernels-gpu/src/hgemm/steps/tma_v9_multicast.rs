#![cfg(lab_sm90)]
//! Hopper step h9 — h6 in **clusters of two CTAs sharing B through TMA multicast** (issue 15: 4096³
//! and 8192³ at ≥ 1.00× cuBLAS; h6 measured 95–98% on the H100 in session 14's sweep).
//!
//! Why: `ncu` names cuBLAS's kernel at 4096³ `nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA`
//! (`results/2026-11-22-h200-hopper-repeat/hopper.txt`): h6's 128×256 tile (256×128 in cuBLAS's
//! column-major view), two cooperating consumer warpgroups, K tiles of 64 — and two things h6 lacks,
//! **4 stages** instead of 3 and **clusters of 1×2** whose two CTAs hold vertically adjacent tiles of
//! the same columns. h6 pulls every stage (16 KiB of A, 32 KiB of B) from L2 per CTA: at 4096³ that
//! is 512 tiles × 64 K tiles × 48 KiB = 1.6 GB in ~195 µs, ≈ 8.3 TB/s, about 60% of the ~13 TB/s that
//! `ncu`'s L2 percentages imply on this H100 (session 14, `call1-d6/ncu.txt`).
//!
//! Diff from h6 (its body, `tma_store::<E, 2, STAGES>`; h6 is `<E, 1, 3>`):
//! * `.reqnctapercluster 2`; the CTAs of a cluster walk the same two-tile-high tile groups
//!   (`tma_persistent::TileWalk::<2>`, shared with FP8 f5), CTA `rank` taking tile row `2p + rank`;
//!   the grid is `2 · min(groups, ⌊SMs / 2⌋)`;
//! * the producer's stage (`tma_wide_tile::issue_wide_stage_cluster::<2>`): `expect_tx` of the whole
//!   48 KiB as before, its own A box as before, and B boxes `2·rank`, `2·rank + 1` by
//!   `cp.async.bulk.tensor…multicast::cluster` (mask `0b11`) into both CTAs' stage — per pair of
//!   tiles 64 KiB from L2 per K tile instead of 96;
//! * every consumer warp releases a stage on the empty barrier of both CTAs
//!   (`Ring::release_cluster::<2>`); the empty barriers count 16 warps;
//! * odd tile rows: the last group's second CTA computes a tile row past M on zero-filled A, and the
//!   TMA clips its stores.
//!
//! `h9s4` adds cuBLAS's fourth stage. Four 48 KiB stages leave 32 KiB for C staging, so each consumer
//! stages two of its four 64×64 boxes, stores them, and stages the other two once the TMA has read the
//! first (`layout::hopper::tma_hgemm::wide_staged_boxes`); `h6s4` (in h6's file) is the same without
//! clusters, the control that says which of the two changes did what.
//!
//! Prediction (before running), each interleaved with h6 at 4096³, 8192³ and the sweep's prefill
//! shapes: FP8 f5 (the same multicast on f1) measured −12 … +5% because f1 was tensor-bound, and h6's
//! tensor pipe is 90% busy at 4096³ (cuBLAS 95%), so the L2 saving buys little by itself:
//! **h9 1.00–1.03× h6**; **h6s4 1.00–1.02×** (a deeper ring against the L2 latency, minus ~1% for the
//! half-staged epilogue's wait); **h9s4 1.02–1.05×**, cuBLAS's configuration, ≥ 1.00× cuBLAS at 4096³
//! and 8192³.
//!
//! Measured (H100, `results/2026-11-23-h100-session15/`; `kernel-lab ab`, 8 rounds, and `ncu` at 4096³):
//! **the fourth stage is the whole gain, the multicast none of it.**
//! * h6s4 / h6: **1.04× at 4096³, 1.05× at 8192³, 1.05× at 2048×11008×4096, 1.06× at 4000³, 1.03× at
//!   4096²×11008** (8/8 rounds at three shapes); `ncu` at 4096³: 185.3 µs against h6's 192.5 and
//!   cuBLAS's 184.2, tensor pipe active 95.0% (h6 90.1%, cuBLAS 95.0%). Predicted 1.00–1.02×: the ring
//!   was shorter than the L2's latency needed, and the half-staged epilogue's wait cost less than the
//!   stage bought.
//! * h9s4 / h6s4: 0.99×, 1.02×, 1.01×, 1.03×, 1.00× at the same shapes; h9 / h6 (call 1, both against
//!   cuBLAS) 0.98–1.01×. The multicast halved nothing `ncu` counts as L2 traffic (h9 1.17 GB of L2
//!   bytes, h6 1.14 GB; DRAM reads 149 against 187 MB) and h6 was not L2-bound (45% of the L2's
//!   peak) — FP8 f5's lesson again.
//! * So the entry point takes **h6s4** where it took h6 (`gemm::default_step`); h9 and h9s4 stay as
//!   measured negatives.
use super::elem::{Bf16, F16};
use super::tma_store_body::tma_store;
use crate::launch_bounds::launch_bounds;
use crate::prim::{cluster_dims, tma::TensorMap};
use layout::hopper::tma_hgemm::{H6_STAGES, H9S4_STAGES};

/// [`super::tma_v6_tma_store::hgemm_tma_v6`] in clusters of two CTAs on vertically adjacent tiles,
/// sharing B's boxes by TMA multicast.
///
/// # Safety
/// As `hgemm_tma_v6`, with a grid that is a multiple of 2 (the clusters, compiled in).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v9(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the proof is the shared body's, `tma_store_body::tma_store`).
    unsafe { tma_store::<F16, 2, H6_STAGES>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

/// [`hgemm_tma_v9`] on bf16.
///
/// # Safety
/// As [`hgemm_tma_v9`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v9_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { tma_store::<Bf16, 2, H6_STAGES>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

/// [`hgemm_tma_v9`] with four stages and C staged half a consumer tile at a time.
///
/// # Safety
/// As [`hgemm_tma_v9`], with `H9S4_DYN_SMEM` bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v9_s4(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { tma_store::<F16, 2, H9S4_STAGES>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

/// [`hgemm_tma_v9_s4`] on bf16.
///
/// # Safety
/// As [`hgemm_tma_v9_s4`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v9_s4_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, m: u32, n: u32,
                                                       k: u32) {
    // SAFETY: forwarded.
    unsafe { tma_store::<Bf16, 2, H9S4_STAGES>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_tma_v9, 384, 1);
launch_bounds!(hgemm_tma_v9_bf16, 384, 1);
launch_bounds!(hgemm_tma_v9_s4, 384, 1);
launch_bounds!(hgemm_tma_v9_s4_bf16, 384, 1);
cluster_dims!(hgemm_tma_v9, 2);
cluster_dims!(hgemm_tma_v9_bf16, 2);
cluster_dims!(hgemm_tma_v9_s4, 2);
cluster_dims!(hgemm_tma_v9_s4_bf16, 2);
