#![cfg(lab_sm90)]
//! Decode step d25 — d16's CTA with **K split across CTAs** where its 64×64 tiles leave SMs idle.
//!
//! Why: d16 (one consumer warpgroup, the first stages issued before the block barrier: the lowest fixed
//! cost of the 64-row decode steps) runs one whole-K tile per CTA, so at 16 < M ≤ 64 and N below
//! 67 · 64 columns its tiles fill half the SMs or less, each streaming its weights at one SM's rate.
//! 32×4096×14336 (64 tiles) ran 0.80× cuBLAS on d16 (session 56), 64×3072×3072 (48 tiles) 0.77×. d7
//! splits K but pays two consumer warpgroups' fixed cost (6.1 µs against d16's 3.6 in the calibration)
//! and 64×128 tiles.
//!
//! Diff from d16: the CTA walks (tile, split) units (`split_k::Units`, the split count
//! `persistent_splits` on 64×64 tiles: ⌊SMs / tiles⌋, at least two K tiles a split — the host's
//! `Grid::PersistentSplitK` and `Args::TmaSplitK`, as d3); the first unit's first stages are issued
//! early as in d16. A split unit stores its f32 partial (16 pairs a thread, coalesced), takes a ticket on
//! the tile's counter, and the tile's last unit adds the splits in order and stores C as d16 does
//! (`decode_one_consumer::decode_split`). One split: d16 exactly.
//!
//! Prediction (before running): where d16 has tiles ≤ SMs / 2, the splits put ⌊132 / tiles⌋ CTAs on
//! each tile and the launch becomes DRAM-bound plus d16's fixed cost and one partial round trip
//! (~1.5 µs): 32×4096×14336 (2 splits, 128 CTAs) from ~42 µs to ~31 µs (117 MB at ~4.1 TB/s + fixed);
//! 64×3072×3072 (48 tiles, 2 splits) 13.0 → ~10.5 µs; 32×2048×4096 (32 tiles, 4 splits) → ~9.5–10.5 µs
//! (cuBLAS 10.8). Elsewhere (one split) d16's time.
//!
//! Measured (H200, session 69, 3 processes, 16 corpus shapes with M 32–64 and ≤ 66 tiles, against d16 and
//! cuBLAS in the same process): the first form, whose last CTA summed the splits pair by pair (16 L2 round
//! trips behind each other), 0.82× d16 with a ~13 µs floor; with every pair's loads of four splits issued
//! at once, **1.13× d16** — 0.85–0.92× at K ≤ 1536 (the partials' round trip costs more than the idle SMs
//! did), 1.2–2.0× at K ≥ 4096: 32×2048×8192 25.8 → 12.8 µs, 64×3072×8192 26.4 → 20.3, 64×4096×14336 (a
//! second set) 42.7 → 35.5 µs (1.00× cuBLAS). The prediction held at deep K (64×3072×3072 11.0 µs against
//! ~10.5) and failed at shallow K; the cost model, not a rule, chooses it.
use super::decode_one_consumer::decode_split;
use super::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;

/// `C = A · B` (f16) as d16, K split over `splits` CTAs per tile.
///
/// # Safety
/// Tensor maps of A (M×K f16, box 64 K × `decode_box_rows(m, 64)` rows) and B (K×N f16, box 64 N × 64 K),
/// both `SWIZZLE_128B`; `g_c` of m·n f16; `ws` of at least `splits · ⌈m/64⌉·⌈n/64⌉ · D25_TILE_F32` f32,
/// `count` of `⌈m/64⌉·⌈n/64⌉` u32, zero; `1 ≤ splits ≤ 16` with no split empty (`persistent_splits`);
/// 256 threads, `D25_DYN_SMEM` bytes; a 1-D grid of at most `⌈m/64⌉·⌈n/64⌉ · splits` CTAs; launched with
/// or without programmatic stream serialization.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v25(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32,
                                                   splits: u32) {
    // SAFETY: forwarded (d16's tile, whose stage and ring with the flag word are `D25_DYN_SMEM`'s).
    unsafe { decode_split::<F16>(tmap_a, tmap_b, g_c, ws, count, m, n, k, splits) }
}

/// [`hgemm_decode_v25`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v25`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v25_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32,
                                                        k: u32, splits: u32) {
    // SAFETY: forwarded.
    unsafe { decode_split::<Bf16>(tmap_a, tmap_b, g_c, ws, count, m, n, k, splits) }
}

// 256 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v25, 256, 1);
launch_bounds!(hgemm_decode_v25_bf16, 256, 1);
