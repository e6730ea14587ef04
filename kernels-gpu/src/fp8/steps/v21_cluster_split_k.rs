#![cfg(lab_sm90)]
//! FP8 step f21 — f12's per-tensor 128×256 tiles with HGEMM h8's **split-K inside a cluster**: the
//! `S` CTAs of a cluster (2 … 8) each run `⌈K/128⌉ / S` of a tile's K tiles, keep their f32 partial in
//! their own shared memory, and after one cluster barrier each sums `128 / S` rows of the tile over
//! the cluster (distributed shared memory) and writes them to C as bf16.
//!
//! Why: with few tiles f14 leaves most SMs idle while each CTA streams all of K through its one SM —
//! 256×768×1536 is 6 tiles of 128×256 (6 of 132 SMs busy, 12.7 µs: 0.47× cuBLASLt's 6.0 µs), and the
//! corpus's prefill and batched-decode shapes (M 17–512 on 4096–28672-wide weights) are 16–224 tiles.
//! The per-tensor scale is linear, so each split's partial is scaled before the sum, as f14's
//! stream-K partials are; no workspace, no counters, no second launch.
//!
//! Diff from f12: h8's body (`hgemm::cluster_split_k!`, written once for both) with f12's stage loads
//! (`fp8::tile::issue_stage`: A 128 rows × 128 B, B 256 rows × 128 B) and f1's per-tensor K loop
//! (`fp8::wide::PerTensor`); C leaves by 8-byte global stores of the summed rows (h8's), not by TMA.
//! One entry per cluster size, `fp8_gemm_v21_x2` … `_x8`.
//!
//! Prediction (H200, before the run): where f14 runs one round of few tiles its time is ~6.5 µs of
//! fixed cost plus ~0.5 µs a K tile (256×768×1536: 12.7 µs, 256×2048×1024: 10.7 µs in session 71's
//! headline); f21 splits the K tiles `S` ways for ~1–2 µs of partial store, cluster barrier and sum:
//! 256×768×1536 in clusters of 4 ~8–9 µs (0.65–0.75× cuBLASLt), 128×4096×4096 (16 tiles × 32 K tiles)
//! in clusters of 8 ~ 1.6–2× f14.
//!
//! Measured (H200, `results/2026-12-01-h200-session72`, medians of 3 processes, × cuBLASLt per tensor):
//! 256×768×1536 10.4 µs in clusters of 4 or 6 (0.58×; f14 13.0 µs, 0.47×) — the fixed cost is ~5 K tiles
//! of one CTA, more than predicted; 128×3072×4096 1.90× f14, 64×2048×4096 2.23×, 512×4096×11008 1.37× (in
//! clusters of 2). Over 14 held-out few-tile shapes the library's pick (`steps::fp8::f21_splits`) lifts the
//! class from 0.53× to 0.74× cuBLASLt. `ncu`: cuBLASLt's kernels there are 64×24–64 tiles with the operands
//! swapped, ~90 CTAs in clusters of 8 (4.96 µs at 128×1024×1024 where f21x4 takes 9.31).
use crate::fp8::block_scaled::Scales;
use crate::fp8::tile::issue_stage;
use crate::fp8::wide::{PerTensor, WideLoop};
use crate::hgemm::cluster_split_k::cluster_split_k;
use crate::hgemm::elem::Bf16;
use crate::launch_bounds::launch_bounds;
use crate::prim::{cluster_dims, tma::TensorMap};
use layout::fp8::tiles::{BK, BM, F1_BN as BN, F1_STAGE_BYTES as STAGE_BYTES, F21_STAGES as STAGES};

/// Declares f21's entry for clusters of `$s` CTAs.
macro_rules! f21_entries {
    ($($s:literal: $name:ident;)*) => {$(
        /// `C = (*scale_a · *scale_b) · qA · qBᵀ` (bf16) with K split over a cluster of CTAs, the
        /// partials summed through distributed shared memory (module doc).
        ///
        /// # Safety
        /// Tensor maps of qA (M×K e4m3, box 128 rows × 128 B) and qB (N×K e4m3, box 256 rows × 128 B),
        /// both `SWIZZLE_128B`; `scale_a`, `scale_b` one readable f32 each; `g_c` of m·n writable bf16
        /// with `n` a multiple of 4; 384 threads, `F21_DYN_SMEM` bytes of dynamic shared memory, a
        /// 1-D grid of exactly `⌈m/128⌉·⌈n/256⌉` × the cluster size CTAs.
        #[unsafe(no_mangle)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $name(tmap_a: *const TensorMap, tmap_b: *const TensorMap, scale_a: *const f32, scale_b: *const f32,
                                                g_c: *mut u16, m: u32, n: u32, k: u32) {
            // SAFETY: forwarded.
            unsafe { cluster_split_k_fp8::<$s>(tmap_a, tmap_b, scale_a, scale_b, g_c, m, n, k) }
        }

        // 384 threads, one CTA per SM (without both directives ptxas ignores `setmaxnreg`).
        launch_bounds!($name, 384, 1);
        cluster_dims!($name, $s);
    )*};
}

f21_entries! {
    2: fp8_gemm_v21_x2;
    3: fp8_gemm_v21_x3;
    4: fp8_gemm_v21_x4;
    5: fp8_gemm_v21_x5;
    6: fp8_gemm_v21_x6;
    7: fp8_gemm_v21_x7;
    8: fp8_gemm_v21_x8;
}

/// The body of f21 in clusters of `S` CTAs.
///
/// # Safety
/// As the entries.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn cluster_split_k_fp8<const S: u32>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, scale_a: *const f32, scale_b: *const f32, g_c: *mut u16,
                                            m: u32, n: u32, k: u32) {
    // SAFETY: h8's proof (`hgemm_tma_v8_x*`: the shared body `hgemm::cluster_split_k!`), with f12's
    // stages (48 KiB, as h8's, so the 128 KiB partial lies inside the 4-stage ring) and f1's per-tensor
    // K loop, which ends with `wgmma` wait_group 0 as h8's does; the scales are one f32 each (the
    // per-tensor contract), each split's partial scaled before the sum (the scale is linear).
    unsafe {
        cluster_split_k! {
            splits: S, stages: STAGES, stage_bytes: STAGE_BYTES, bk: BK;
            maps: (tmap_a, tmap_b); c: g_c; shape: (m, n, k);
            issue: |s_stage, full, tm, tn, kt| issue_stage::<BN, 1>(s_stage, full, tmap_a, tmap_b, tm * BM, tn * BN, kt, 0);
            consume: |ring, it, kts, mh| {
                // The per-tensor scales read no row (the warpgroup's first is passed).
                let sc = Scales::new(scale_a, scale_b, m, n, k, tm * BM + 64 * mh, tn * BN);
                PerTensor::consume::<1>(ring, &mut it, kts, mh, sc)
            };
            elem: Bf16;
        }
    }
}
