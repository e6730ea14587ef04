#![cfg(lab_sm90)]
//! Decode step d28 — d15's CTA (one consumer warpgroup, the first stages issued before the first
//! barrier, one 64-column tile) with **K split over a thread-block cluster** of 2, 4 or 8 CTAs, the
//! partials summed through distributed shared memory: `d28x2` … `d28x8` on d15's 16-row activation
//! tiles (M ≤ 16), `d28m64x2` … `d28m64x8` on d16's 64-row tiles.
//!
//! Why: session 80's fresh corpus sample (`results/2026-12-02-h200-session80`) left 20 of 196 shapes
//! under 0.90× cuBLAS, 13 of them small weight streams whose 64-column tiles fill half the SMs or
//! less: 1–16 × 2048–3072 × 2048–8192 on d2 (0.84–0.90×) and 64–128 × 1024–3072 × 3072–4096 on d25
//! (0.82–0.86×). Both split K to reach the idle SMs and pay for it through global memory: d2's and
//! d25's partials go to a workspace, a ticket elects each tile's last CTA, which reads them back from
//! the L2 — the calibration's fixed cost is 5.96 µs for d2 and 5.59 for d25 against d15's 3.56 and
//! d16's 3.80, on launches of 7–15 µs. h8 showed a cluster's CTAs can sum their partials through
//! each other's shared memory after one cluster barrier; at a 16×64 or 64×64 tile the partial is 4 or
//! 16 KiB, a few hundred nanoseconds of DSMEM reads spread over the cluster.
//!
//! Diff from d15/d16: the grid is `tiles · S` CTAs in clusters of `S` (`.reqnctapercluster`), CTA
//! `rank` running K tiles `h8_k_range(k_tiles, rank, S)` of its cluster's tile, not persistent
//! (`decode_one_consumer::decode_cluster`). After its K loop the consumer stores its f32 pairs over
//! the ring, a cluster barrier, then each rank sums the pairs `p ≡ rank (mod S)` of every peer (loads
//! in flight together, added in rank order) and stores them as d15/d16 store theirs. No workspace, no
//! counter, no second launch; deterministic.
//!
//! Prediction (before running, from the calibrated constants: d15's fixed 3.56 µs and 0.148 µs a K
//! tile an SM, d16's 3.80 and 0.163, a copy rate of 4.2 TB/s, ~0.4 µs for the cluster's sum): where
//! the tiles fill at most half the SMs the launch is the DRAM time plus d15's/d16's fixed cost —
//! 1×3072×2048 (48 tiles, x2) ~7–8 µs against d2's 9.7 (cuBLAS 9.1), 16×2048×8192 (32 tiles, x4) ~12
//! against 15.7 (14.3), 64×3072×3072 (x2) ~9 against d25's 12.4 (11.3), 128×1024×4096 (32 tiles of 64
//! rows, x4) ~7.5 against 10.5 (9.0): 0.75–0.85× the time of today's pick, 1.1–1.3× cuBLAS. Where
//! the tiles already fill the SMs a split only adds its sum (the cost model weighs it: the model's
//! candidate alone, like d25 and d27).
//!
//! Measured (H200, bf16, `results/2026-12-02-h200-session80`): every candidate timed on the 20 decode shapes
//! of the prediction's class — d28 the fastest at 17, 1.05–1.23× the rules' pick: 1×3072×2048 **8.3 µs**
//! (d2 9.6, cuBLAS 9.1), 16×2048×8192 14.9 (15.7), 64×3072×3072 **11.0** (d25 12.2), 128×1024×4096 10.5
//! (10.6) — the direction held at the prediction's weaker end; clusters of 2 the fastest size at most shapes.
//! Where the whole-K tiles already filled a third of the SMs or more at K ≤ 2048 (d15, d27 before), 0.89–0.96×
//! (the choice's margin keeps those). memcheck and racecheck clean (the reported hazards lie in cuBLAS's
//! kernel), ptxas 232 registers, no spill, no stack (the pairs' and peers' loops unrolled).
//!
//! `d28m128x2` … `x8` (session 81): the same body on a 128-row tile (`Rows128`: `FlatRows`, `m64n128k16`, 32 pairs
//! a thread, a 32 KiB partial), for 65–256 rows where 64-row tiles read the weights twice and a K block of
//! d16's 16 KiB is bound by the SM's intake. Predicted 128×3072×4096 ~7.5–10 µs against d9's 15.2;
//! measured 13.3 (the hgemm README's d28m128 entry).
use super::decode_one_consumer::{FlatRows, Rows16, decode_cluster};
use super::decode_swapped::SwappedTile;
use super::decode_whole_k::Rows64;
use super::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::{cluster_dims, tma::TensorMap};
use layout::hopper::tma_hgemm::{D28_M128_ROWS as ROWS128, D28_M128_STAGE_BYTES, D28_M128_STAGES};

/// d28m128's tile: 128 activation rows, 24 KiB stages (the 16 KiB activation box, then the weight box),
/// `m64n128k16` into 64 accumulators a thread (d21's flat `RowsAcc`), 32 pairs stored per thread, a
/// 9-stage ring. Only d28 runs it (a whole-K CTA on it would read each stage's 24 KiB for one 64-column
/// tile where d19 shares the activation box between two).
type Rows128 = FlatRows<ROWS128, 64, D28_M128_STAGES>;
const _: () = assert!(<Rows128 as SwappedTile<F16>>::STAGE_BYTES == D28_M128_STAGE_BYTES, "the host's ring (D28_M128_DYN_SMEM) is this tile's");

/// Declares d28's f16 and bf16 entries on tile `$tile` (`$rows` activation rows) for clusters of `$s` CTAs.
macro_rules! d28_entries {
    ($($tile:ty, $rows:literal, $s:literal: $f16:ident, $bf16:ident;)*) => {$(
        /// `C = A · B` (f16) on one-consumer decode tiles with K split over a cluster of CTAs, the
        /// partials summed through distributed shared memory (module doc).
        ///
        /// # Safety
        /// Tensor maps of A (M×K f16, box 64 K × `decode_box_rows(m, rows)` rows) and B (K×N f16, box
        /// 64 N × 64 K), both `SWIZZLE_128B`; `g_c` of m·n f16; 256 threads, the tile's ring
        /// (`D14_DYN_SMEM` at 16 rows, `D16_DYN_SMEM` at 64, `D28_M128_DYN_SMEM` at 128); a 1-D grid of exactly
        /// `⌈m/rows⌉·⌈n/64⌉` × the cluster size CTAs; launched with or without programmatic stream
        /// serialization.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $f16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
            // SAFETY: forwarded (the tile's ring is the launch's dynamic shared memory).
            unsafe { decode_cluster::<F16, $tile, $rows, $s>(tmap_a, tmap_b, g_c, m, n, k) }
        }

        /// The bf16 twin.
        ///
        /// # Safety
        /// As the f16 entry, the tensor maps describing bf16 matrices.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
            // SAFETY: forwarded.
            unsafe { decode_cluster::<Bf16, $tile, $rows, $s>(tmap_a, tmap_b, g_c, m, n, k) }
        }

        // 256 threads, one CTA per SM (without both directives ptxas ignores `setmaxnreg`).
        launch_bounds!($f16, 256, 1);
        launch_bounds!($bf16, 256, 1);
        cluster_dims!($f16, $s);
        cluster_dims!($bf16, $s);
    )*};
}

d28_entries! {
    Rows16, 16, 2: hgemm_decode_v28_x2, hgemm_decode_v28_x2_bf16;
    Rows16, 16, 4: hgemm_decode_v28_x4, hgemm_decode_v28_x4_bf16;
    Rows16, 16, 8: hgemm_decode_v28_x8, hgemm_decode_v28_x8_bf16;
    Rows64, 64, 2: hgemm_decode_v28_m64_x2, hgemm_decode_v28_m64_x2_bf16;
    Rows64, 64, 4: hgemm_decode_v28_m64_x4, hgemm_decode_v28_m64_x4_bf16;
    Rows64, 64, 8: hgemm_decode_v28_m64_x8, hgemm_decode_v28_m64_x8_bf16;
    Rows128, 128, 2: hgemm_decode_v28_m128_x2, hgemm_decode_v28_m128_x2_bf16;
    Rows128, 128, 4: hgemm_decode_v28_m128_x4, hgemm_decode_v28_m128_x4_bf16;
    Rows128, 128, 8: hgemm_decode_v28_m128_x8, hgemm_decode_v28_m128_x8_bf16;
}
