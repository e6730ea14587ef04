#![cfg(lab_sm90)]
//! Hopper step h8: **split-K inside a thread-block cluster, the partials summed through distributed
//! shared memory** (prefill, M = 64–512 on 4096-wide weights).
//!
//! h7 split K too, but its sum went through global memory: each split wrote a 128 KiB f32 partial and
//! the tile's *last* CTA read all of them back alone — up to 1 MiB through one SM's loads — which cost
//! more than the idle SMs had (0.77× h6 at 128×4096×4096). Here the `S` splits of a tile are the `S`
//! CTAs of one cluster (`S` = 2 … 8: `layout::hopper::tma_hgemm::h8_splits`), which the hardware
//! runs at once on one GPC. Each keeps its partial in its own shared memory, and after one cluster
//! barrier CTA `r` sums rows `⌊128·r/S⌋ ..` of the tile (`h8_rows`) from all `S` CTAs (`ld.shared::cluster`, over
//! the SM-to-SM network) and writes them to C: the reduction is spread over the cluster, never leaves
//! the GPC, and needs no workspace, no counter and no second launch.
//!
//! Diff from h5 (non-persistent, as h4: one CTA per (tile, split); the body is
//! `hgemm::cluster_split_k!`, shared with FP8's f21):
//! * grid `tiles · S`, clusters of `S` along x: tile `block / S`, split = `%cluster_ctarank`, K tiles
//!   `layout::hopper::tma_hgemm::h8_k_range` (the splits differ by at most one tile);
//! * the warp-specialized CTA in its `cluster_local` form: each ring is the CTA's own, the producer
//!   warpgroup meets the consumers' one mid-kernel cluster barrier;
//! * epilogue: the two consumer warpgroups meet (both have retired their `wgmma`s), store their f32
//!   accumulators over the ring as the swizzled partial tile (`h8_partial_byte`: 2 wavefronts per
//!   8-byte fragment store, 8 unswizzled), cluster barrier, then each thread sums 16-byte row chunks
//!   over the cluster in rank order (deterministic) and stores 4 outputs (8 bytes) to C; the skeleton's
//!   last cluster barrier keeps every partial alive until all peers have read it.
//!
//! Prediction (H100, before the run): at 128×4096×4096 (16 tiles, S = 8) each CTA runs 8 of h6's
//! K tiles (~0.9 µs each at h6's per-SM rate) plus ~3 µs of fill and reduction: ~11–14 µs against h6's
//! 49 µs and cuBLAS's 28 µs — **~2× cuBLAS**; at 256×4096×4096 (S = 4, 16 K tiles a split) ~1.6×;
//! at 256×4096×14336 (S = 4, 56 K tiles) ~1.4× cuBLAS where h7 ran at 0.79×.
//!
//! Measured (H100, `results/2026-11-23-h100-session7/`): clusters of 8 ran as **two waves** — the GPU
//! holds only 15 clusters of 7 or 8 CTAs at once (a cluster lives on one GPC) — at 76% of cuBLAS. The
//! size is now chosen for one wave from the residency query: 128×4096×4096 in clusters of 4–6 at
//! 107–114% of cuBLAS (21 µs: 2.2× h6, not the 2× cuBLAS predicted — the fixed cost and the weights'
//! 32 MB from DRAM bound it, not the K loop), 256×4096×4096 in clusters of 3 at 98–104%, 256×4096×14336
//! at 89–103%. The fragment stores: 2 wavefronts each, 0 conflicts (`ncu`), as the bank model says.
use super::cluster_split_k::cluster_split_k;
use super::elem::{Bf16, Elem16, F16};
use super::tma::{BK, BM, BN_WIDE as BN, WIDE_STAGE_BYTES as STAGE_BYTES};
use super::tma_wide_tile::{consume_wide_tile, issue_wide_stage};
use crate::launch_bounds::launch_bounds;
use crate::prim::{cluster_dims, tma::TensorMap};
use layout::hopper::tma_hgemm::H8_STAGES as STAGES;

/// Declares the f16 and bf16 entries of h8 for clusters of `$s` CTAs.
macro_rules! h8_entries {
    ($($s:literal: $f16:ident, $bf16:ident;)*) => {$(
        /// `C = A · B` (f16) with K split over a cluster of CTAs, the partials summed through
        /// distributed shared memory (module doc).
        ///
        /// # Safety
        /// Tensor maps of A (M×K) and B (K×N) as h5's, `g_c` of m·n writable 16-bit elements, `n` a
        /// multiple of 8 (the TMA rule); 384 threads, `H8_DYN_SMEM` bytes of dynamic shared memory, a
        /// 1-D grid of exactly `⌈m/128⌉·⌈n/256⌉` × the cluster size CTAs.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $f16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
            // SAFETY: forwarded.
            unsafe { cluster_split_k::<F16, $s>(tmap_a, tmap_b, g_c, m, n, k) }
        }

        /// The bf16 twin.
        ///
        /// # Safety
        /// As the f16 entry, the tensor maps describing bf16 matrices.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
            // SAFETY: forwarded.
            unsafe { cluster_split_k::<Bf16, $s>(tmap_a, tmap_b, g_c, m, n, k) }
        }

        // 384 threads, one CTA per SM (without both directives ptxas ignores `setmaxnreg`).
        launch_bounds!($f16, 384, 1);
        launch_bounds!($bf16, 384, 1);
        cluster_dims!($f16, $s);
        cluster_dims!($bf16, $s);
    )*};
}

h8_entries! {
    2: hgemm_tma_v8_x2, hgemm_tma_v8_x2_bf16;
    3: hgemm_tma_v8_x3, hgemm_tma_v8_x3_bf16;
    4: hgemm_tma_v8_x4, hgemm_tma_v8_x4_bf16;
    5: hgemm_tma_v8_x5, hgemm_tma_v8_x5_bf16;
    6: hgemm_tma_v8_x6, hgemm_tma_v8_x6_bf16;
    7: hgemm_tma_v8_x7, hgemm_tma_v8_x7_bf16;
    8: hgemm_tma_v8_x8, hgemm_tma_v8_x8_bf16;
}

/// The body of h8 for inputs and output of type `E` in clusters of `S` CTAs.
///
/// # Safety
/// As the entries.
#[inline(always)]
unsafe fn cluster_split_k<E: Elem16, const S: u32>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: the K loop as h4's (producer and consumers walk the same K tiles `kt0 .. kt1` of this
    // CTA's ring; every stage use is released once per consumer warp). The partial tile overwrites the
    // ring only after both consumer warpgroups met at named barrier 1, i.e. after every `wgmma` of the
    // CTA retired (`consume_wide_tile` ends with `wait_group 0`) and every TMA load landed (each was
    // waited for); the barriers lie after the ring and are not touched. Peer reads happen between the
    // mid cluster barrier (every partial written, release/acquire) and the skeleton's last one (no CTA
    // exits or rewrites before all have read); every thread of every CTA passes both (producer
    // warpgroup: `consumer_meets: 1`). Every address: partial offsets < 128 KiB ≤ the ring; C stores
    // checked against m and n.
    unsafe {
        cluster_split_k! {
            splits: S, stages: STAGES, stage_bytes: STAGE_BYTES, bk: BK;
            maps: (tmap_a, tmap_b); c: g_c; shape: (m, n, k);
            issue: |s_stage, full, tm, tn, kt| issue_wide_stage(s_stage, full, tmap_a, tmap_b, tm * BM, tn * BN, kt);
            consume: |ring, it, kts, mh| consume_wide_tile::<E, [[f32; 32]; 4], 1>(ring, &mut it, kts, mh);
            elem: E;
        }
    }
}
