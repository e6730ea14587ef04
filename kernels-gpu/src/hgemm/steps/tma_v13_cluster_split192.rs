#![cfg(lab_sm90)]
//! Hopper step h13 — h8's split of K over a cluster on **h11's 128×192 tiles**, for the few-tile,
//! deep-K shapes where h8's 128×256 tiles times a cluster size leave a quarter of the SMs idle.
//!
//! Why: at 256×3072×8192 (a 256-token chunk through a 3072-wide projection of 8192) h8's 2 × 12 = 24
//! tiles in clusters of 4 are 96 CTAs on 132 SMs (clusters of 5 do not fit one round), and the entry's
//! pick ran at 0.79–0.80× cuBLAS (session 98, session 99's candidate run: no candidate was faster).
//! 128×192 tiles make 2 × 16 = 32 tiles: 128 CTAs in clusters of 4, each a K block of three quarters
//! of the work. The same at 512×3072×4096 (4 × 16 tiles in clusters of 2: 128 CTAs where h8's 48
//! tiles give 96 or, in clusters of 3, 144 — two rounds).
//!
//! Diff from h8 (`hgemm::cluster_split_k!`, the body both share): the stage is h11's (A's 128 rows and
//! **three** B boxes, 40 KiB: `tma_wide_body::issue_stage`), the K loop h11's (`wgmma.m64n192k16` into
//! `[[f32; 32]; 3]`), the ring five stages deep (200 KiB, h8: four of 48 KiB); the partial tile keeps
//! h8's layout with its last 64 columns unused, and the cluster's sum skips them
//! (`cluster_split_k::PartialTile`).
//!
//! Prediction (before the first run, from the shipped H100 constants: h8's K block 0.584 µs, h11's
//! 0.468): 256×3072×8192 in clusters of 4 runs 32 K blocks a CTA as h8x4 does, at 0.8× the cost each:
//! ~0.80–0.85× h8x4's time, **~1.15–1.25× h8x4, 0.92–1.0× cuBLAS**; 512×3072×4096 in clusters of 2
//! ~1.1–1.2× d22r128. Where 128×256 tiles already fill the resident clusters, slower than h8.
use super::cluster_split_k::cluster_split_k;
use super::elem::{Bf16, Elem16, F16};
use super::tma::BK;
use super::tma_wide_body::issue_stage;
use super::tma_wide_tile::consume_wide_tile;
use crate::launch_bounds::launch_bounds;
use crate::prim::{cluster_dims, tma::TensorMap};
use layout::hopper::tma_hgemm::{BM, H11_BN as BN, H11_STAGE_BYTES as STAGE_BYTES, H13_STAGES as STAGES};

/// Declares the f16 and bf16 entries of h13 for clusters of `$s` CTAs.
macro_rules! h13_entries {
    ($($s:literal: $f16:ident, $bf16:ident;)*) => {$(
        /// `C = A · B` (f16) on 128×192 tiles with K split over a cluster of CTAs, the partials summed
        /// through distributed shared memory (module doc).
        ///
        /// # Safety
        /// Tensor maps of A (M×K, box 128 × 64) and B (K×N, box 64 × 64), `SWIZZLE_128B`, in device
        /// memory; `g_c` of m·n writable 16-bit elements, `n` a multiple of 8 (the TMA rule); 384
        /// threads, `H13_DYN_SMEM` bytes of dynamic shared memory, a 1-D grid of exactly
        /// `⌈m/128⌉·⌈n/192⌉` × the cluster size CTAs.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $f16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
            // SAFETY: forwarded.
            unsafe { cluster_split_k192::<F16, $s>(tmap_a, tmap_b, g_c, m, n, k) }
        }

        /// The bf16 twin.
        ///
        /// # Safety
        /// As the f16 entry, the tensor maps describing bf16 matrices.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
            // SAFETY: forwarded.
            unsafe { cluster_split_k192::<Bf16, $s>(tmap_a, tmap_b, g_c, m, n, k) }
        }

        // 384 threads, one CTA per SM (without both directives ptxas ignores `setmaxnreg`).
        launch_bounds!($f16, 384, 1);
        launch_bounds!($bf16, 384, 1);
        cluster_dims!($f16, $s);
        cluster_dims!($bf16, $s);
    )*};
}

h13_entries! {
    2: hgemm_tma_v13_x2, hgemm_tma_v13_x2_bf16;
    3: hgemm_tma_v13_x3, hgemm_tma_v13_x3_bf16;
    4: hgemm_tma_v13_x4, hgemm_tma_v13_x4_bf16;
    5: hgemm_tma_v13_x5, hgemm_tma_v13_x5_bf16;
    6: hgemm_tma_v13_x6, hgemm_tma_v13_x6_bf16;
    7: hgemm_tma_v13_x7, hgemm_tma_v13_x7_bf16;
    8: hgemm_tma_v13_x8, hgemm_tma_v13_x8_bf16;
}

/// The body of h13 for inputs and output of type `E` in clusters of `S` CTAs.
///
/// # Safety
/// As the entries.
#[inline(always)]
unsafe fn cluster_split_k192<E: Elem16, const S: u32>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: h8's proof (`hgemm_tma_v8_x*`, the shared body) with h11's stages: the producer and the
    // consumers walk the same K tiles `kt0 .. kt1` of this CTA's ring, every stage use released once per
    // consumer warp; the 128 KiB partial (h8's layout, columns < 192 written and read) lies inside the
    // five-stage 200 KiB ring and overwrites it only after both consumer warpgroups met at named
    // barrier 1 (every `wgmma` retired: `consume_wide_tile` ends with `wait_group 0`; every TMA load
    // waited for); peer reads between the mid cluster barrier and the skeleton's last one; C stores
    // checked against m and n.
    unsafe {
        cluster_split_k! {
            splits: S, stages: STAGES, stage_bytes: STAGE_BYTES, bk: BK;
            maps: (tmap_a, tmap_b); c: g_c; shape: (m, n, k);
            issue: |s_stage, full, tm, tn, kt| issue_stage(s_stage, BN / 64, STAGE_BYTES, full, tmap_a, tmap_b, tm * BM, tn * BN, kt);
            consume: |ring, it, kts, mh| consume_wide_tile::<E, [[f32; 32]; 3], 1>(ring, &mut it, kts, mh);
            acc: [[f32; 32]; 3], elem: E;
        }
    }
}
