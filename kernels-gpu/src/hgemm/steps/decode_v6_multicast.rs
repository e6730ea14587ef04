#![cfg(lab_sm90)]
//! Decode-ladder step d6 — d3 in **clusters of two CTAs sharing the weights through TMA multicast**.
//!
//! Why: the entry point gives d3 the shapes just above the decode range (M = 128 … 1024 where h6's
//! 128×256 tiles would leave most SMs idle), and at 1000³ / 1024³ it runs at 75–83% of cuBLAS
//! (1024³: 10 µs against 8). `ncu` of session 9 (`call4-configs`) shows what cuBLAS runs there:
//! `nvjet …128x64…1x2`, 128 CTAs of 128×64 **in clusters of two**. Per CTA, d3 reads its 64-row
//! activation slab and its 128-column weight slab from L2 — `(64 + 128) · K · 2` bytes, 384 KiB at
//! K = 1024, 48 MiB for the 128 CTAs. The two CTAs of a cluster here compute vertically adjacent
//! tiles (tile rows `2p` and `2p + 1`, the same columns and K range), so they need the same weight
//! boxes: each CTA loads its own activation box and **one of the stage's two weight boxes, multicast
//! into both CTAs' stage** — `(64 + 64) · K · 2` bytes per CTA, 32 MiB at 1024³, what cuBLAS's
//! 128×64 pairs read.
//!
//! Diff from d3 (its body, `decode::<E, 2, false>`; d3 is `decode::<E, 1, false>`):
//! * `.reqnctapercluster 2`; the CTAs of a cluster walk the same units of two-tile-high *cluster
//!   tiles*, CTA `rank` taking tile row `2·tm2 + rank`; the grid is `2 · min(units, SMs / 2)`;
//! * the producer's stage: `expect_tx` of the whole stage as before, its activation box as before,
//!   weight box `rank` by `cp.async.bulk.tensor…multicast::cluster` with mask `0b11`;
//! * every consumer warp releases a stage on the empty barrier of both CTAs
//!   (`Ring::release_cluster::<2>`); the empty barriers count 16 warps;
//! * with `⌈M/64⌉` odd the last cluster's second CTA computes a tile row past M: it loads and
//!   multicasts its share and stores nothing.
//!
//! Prediction (before running): every d3 shape saves the same third of its L2 reads (per CTA and K
//! tile, 16 of 24 KiB). Whether that buys time depends on what bounds d3. At 256×4096² d3 reads
//! 192 MiB in ~18 µs past the launch (~10.7 TB/s), at 1024³ 48 MiB in ~7 µs (~6.9 TB/s): 1024³ is
//! below the rate the L2 already delivers elsewhere, so it is at most partly L2-bound. Predicted:
//! **1.05–1.15× d3 at 1000³ / 1024³** (the first stages' latency is shared, the rest as d3), **≈ 1.0×
//! at 256×4096²** and the other K = 4096 shapes (tensor-bound there: d3 at 93–98% of cuBLAS).
//!
//! Measured (H100, `results/2026-11-23-h100-session14/call1-d6`, interleaved with d3 in 8 rounds):
//! **0.87× at 1024³**, 1.04× at 1000³, 1.04–1.05× at 256 / 512 × 4096², 1.10–1.13× at
//! 256×4096×14336, 0.97–0.99× at 128×14336×4096 and 128×8192². `ncu` at 1024³: the L2 at 30% of its
//! peak in d3, d6 and cuBLAS alike — d3 was not L2-bound, and d6 moved *more* L2 bytes (45 against 36
//! MB). What separated d3 from cuBLAS was its epilogue (d7). Not chosen.
use super::decode_swapped::decode;
use super::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::{cluster_dims, tma::TensorMap};

/// [`super::decode_v3_tma_swapped::hgemm_decode_v3`] in clusters of two CTAs sharing the weight boxes.
///
/// # Safety
/// As `hgemm_decode_v3`, with a grid that is a multiple of 2 (the clusters, compiled in) and `ws` /
/// `count` sized for `⌈m/64⌉ · ⌈n/128⌉` tiles as there.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v6(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, ws: *mut f32, count: *mut u32,
                                                  m: u32, n: u32, k: u32, splits: u32) {
    // SAFETY: forwarded (the proof is the shared body's, `decode_swapped::decode`).
    unsafe { decode::<F16, 2, false>(tmap_a, tmap_b, core::ptr::null(), g_c, ws, count, m, n, k, splits) }
}

/// [`hgemm_decode_v6`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v6`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v6_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, ws: *mut f32, count: *mut u32,
                                                       m: u32, n: u32, k: u32, splits: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16, 2, false>(tmap_a, tmap_b, core::ptr::null(), g_c, ws, count, m, n, k, splits) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v6, 384, 1);
launch_bounds!(hgemm_decode_v6_bf16, 384, 1);
cluster_dims!(hgemm_decode_v6, 2);
cluster_dims!(hgemm_decode_v6_bf16, 2);
