#![cfg(lab_sm90)]
//! FP8 step f24 — f22's 64×64 per-tensor tiles computed transposed with **K split over a cluster**:
//! the `S` CTAs of a cluster (2 … 8) each run `⌈K/128⌉ / S` of a tile's K tiles into a 4-stage ring
//! (two CTAs an SM), and after one cluster barrier each sums its share of the tile's accumulator pairs
//! over the cluster (distributed shared memory) and writes them to C as bf16 (HGEMM d28's end,
//! `hgemm::cluster_split_k::sum_pairs`).
//!
//! Why: at 32 rows no FP8 step fits (session 84's corpus sample: eight shapes under 0.85× cuBLASLt, f22
//! 32×11008×4096 at 0.625). fw2 stops at 16 rows; f22's tiles run half empty, and where they are
//! 1–2 rounds of the SMs (172 tiles of 32 K tiles at 32×11008×4096 on 132 SMs) the second round leaves
//! most SMs idle while each CTA streams all of K: 64 K-tile times for 41.7 of work. Split 3 ways the
//! same shape is 516 CTAs of ~11 K tiles, which two CTAs an SM run in two rounds of ~22 K-tile times.
//! A stage is f22's (`fp8::swapped`), so a CTA's rate per K tile is f22's; the sum moves a 16 KiB
//! partial a CTA, an eighth of f21's.
//!
//! Diff from f22: the grid is every tile × `S` CTAs (not persistent), CTA `rank` of cluster `c` runs K
//! tiles `h8_k_range(⌈K/128⌉, rank, S)` of tile `c`, thread 0 issuing its first stages before the first
//! cluster barrier (d28's); 4 stages instead of 8 and ≤ 128 registers a thread at compile time, so two
//! CTAs share an SM (the consumer raised to 208 by `setmaxnreg`); each split's accumulators scaled by
//! `sa·sb` before the sum (the scale is linear), C written by 16-bit global stores of the summed pairs
//! instead of `stmatrix` and a TMA store.
//!
//! Prediction (H200, before the run): at 32×11008×4096 (f22 19.8 µs, cuBLASLt 12.7), f24x3 ~14–15 µs
//! (0.85–0.90× cuBLASLt); at 32×16000×8192 (250 tiles × 64 K tiles; f22 49.5, cuBLASLt 36.6) f24x2 ~38–40;
//! at 32×3584×7168 (56 tiles × 56 K tiles; f22 12.7, cuBLASLt 10.5) f24x4 ~9–10. Slower than f22 where
//! its tiles already fill the SMs (each split pays the sum and a second launch wave's prologue).
use crate::fp8::swapped::{consume, issue_stage};
use crate::hgemm::{cluster_split_k::sum_pairs, elem::Bf16, tma_warp_specialized::warp_specialized};
use crate::launch_bounds::launch_bounds;
use crate::prim::{cluster::cluster_ctarank, cluster_dims, thread::block_idx_x, tma::TensorMap};
use layout::fp8::tiles::{BK, F22_STAGE_BYTES as STAGE_BYTES, F22_TILE as T, F24_STAGES as STAGES};
use layout::hopper::tma_hgemm::h8_k_range;

/// Declares f24's entry for clusters of `$s` CTAs.
macro_rules! f24_entries {
    ($($s:literal: $name:ident;)*) => {$(
        /// `C = (*scale_a · *scale_b) · qA · qBᵀ` (bf16) on 64×64 tiles computed transposed, K split
        /// over a cluster of CTAs, the partials summed through distributed shared memory (module doc).
        ///
        /// # Safety
        /// Tensor maps of qA (M×K e4m3) and qB (N×K e4m3), both boxes of 64 rows × 128 B,
        /// `SWIZZLE_128B`; `scale_a`, `scale_b` one readable f32 each; `g_c` of m·n writable bf16;
        /// 256 threads, `F24_DYN_SMEM` bytes of dynamic shared memory, a 1-D grid of exactly
        /// `⌈m/64⌉·⌈n/64⌉` × the cluster size CTAs.
        #[unsafe(no_mangle)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $name(tmap_a: *const TensorMap, tmap_b: *const TensorMap, scale_a: *const f32, scale_b: *const f32,
                                                g_c: *mut u16, m: u32, n: u32, k: u32) {
            // SAFETY: forwarded.
            unsafe { swapped_cluster_split_k::<$s>(tmap_a, tmap_b, scale_a, scale_b, g_c, m, n, k) }
        }

        // 256 threads, two CTAs an SM (≤ 128 registers a thread at compile time; `setmaxnreg` moves them).
        launch_bounds!($name, 256, 2);
        cluster_dims!($name, $s);
    )*};
}

f24_entries! {
    2: fp8_gemm_v24_x2;
    3: fp8_gemm_v24_x3;
    4: fp8_gemm_v24_x4;
    5: fp8_gemm_v24_x5;
    6: fp8_gemm_v24_x6;
    7: fp8_gemm_v24_x7;
    8: fp8_gemm_v24_x8;
}

/// The body of f24 in clusters of `S` CTAs.
///
/// # Safety
/// As the entries.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn swapped_cluster_split_k<const S: u32>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, scale_a: *const f32, scale_b: *const f32, g_c: *mut u16,
                                                m: u32, n: u32, k: u32) {
    const { assert!(S >= 2 && S <= 8, "clusters of 2 … 8 CTAs (8: the portable maximum)") };
    const { assert!(STAGES * STAGE_BYTES >= T * 256, "the 64-row tile's f32 partial (16 KiB) lies over the ring") };
    // SAFETY: the producer and the consumer walk the same K tiles (`kt0 .. kt1`), so ring indices agree;
    // each stage use is consumed and released by the consumer's 4 warps (the empty barriers' count for
    // one consumer warpgroup). The first `early` stages are issued by thread 0 after it initialized and
    // fenced the barriers and before anyone else uses them (running indices 0 .. early, each a first
    // use), and the producer loop starts after them; `issue_stage`'s boxes are the maps' (64 rows × 128 B).
    // `sum_pairs`' contract: the partial (64 · 256 bytes) lies over the ring's first stages, which no
    // TMA write still targets (the consumer waited on every stage the producer issued); every thread
    // of the cluster passes its cluster barrier (the macro's producer warpgroup meets it once after its
    // block) and the macro's last one before exiting; `g_c` holds m·n bf16. The scales are one f32 each.
    unsafe {
        warp_specialized! {
            cluster_local: S, consumer_meets: 1, consumers: 1, registers: (40, 208), first: {
                let mut i = 0;
                while i < early {
                    let (s_stage, full, _, _) = ring.at(i);
                    issue_stage(s_stage, full, tmap_a, tmap_b, tm, tn, kt0 + i);
                    i += 1;
                }
            };
            ring: let (ring, _) = (STAGES, STAGE_BYTES, 0);
            thread: tid, warpgroup: wg;
            setup: {
                // >= 1: `tile % tiles_n` cannot trap (the host never sends n = 0).
                let tiles_n = n.div_ceil(T).max(1);
                let tile = block_idx_x() / S;
                // Consecutive clusters share the activation tile and walk the weights (f22's order).
                let (tn, tm) = (tile % tiles_n, tile / tiles_n);
                let rank = cluster_ctarank();
                let (kt0, kt1) = h8_k_range(k.div_ceil(BK), rank, S);
                let early = if kt1 - kt0 < STAGES { kt1 - kt0 } else { STAGES };
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                let mut it = early; // the first stages are in flight
                while kt0 + it < kt1 {
                    let (s_stage, full, _, _) = ring.at(it);
                    ring.wait_empty(it);
                    issue_stage(s_stage, full, tmap_a, tmap_b, tm, tn, kt0 + it);
                    it += 1;
                }
            }
            consumer(_mh): {
                let mut it = 0u32;
                let s = *scale_a * *scale_b;
                let acc = consume(ring, &mut it, kt1 - kt0);
                let part: [f32; 32] = core::array::from_fn(|i| acc[i] * s);
                // The activation box starts at row 64·tm (rows past M zero-filled, not moved up).
                sum_pairs::<Bf16, { T }, S>(&part, ring.at(0).0, g_c, m, n, tm * T, tm * T, tn * T, rank, tid);
            }
        }
    }
}
