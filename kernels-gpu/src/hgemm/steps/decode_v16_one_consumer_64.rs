#![cfg(lab_sm90)]
//! Decode step d16 — d15's CTA (one consumer warpgroup, the first stages issued before the block
//! barrier) on d9's **64-row** activation tiles, for 16 < M ≤ 64.
//!
//! Why: d13–d15 took ~1.3 µs off a launch at M ≤ 16 by sizing the activation tile to 16 rows,
//! dropping the second consumer's exchange and issuing the first loads early. At 16 < M ≤ 64 the
//! tile has to be 64 rows (a 16-row tile would read the weights once per 16 rows), but the other two
//! changes apply: d9 runs 64×4096² at 78% of a copy of the weights (cuBLAS 82%).
//!
//! Diff from d15: the same body (`decode_one_consumer::decode` with `EARLY`) on another `OneConsumerTile`:
//! d4's stage (a 64-row activation box, 8 KiB, and the weight box: 16 KiB, 12 stages), `m64n64k16`
//! into 32 accumulators, the K loop of d3 (one `wgmma` group in flight, `consume` with one consumer's
//! weight box), the 16 pairs of d4's epilogue stored straight from the accumulators.
//!
//! Prediction (before running): d9's fixed cost less ~0.8–1.0 µs (the exchange of 32 values and its
//! two named barriers, the late first loads): 64×4096² 16.7 → ~15.8 µs (≈ 1.05× d9, 78% → ~83% of the
//! copy), 32×4096² likewise, 64×4096×14336 1.01–1.02×; slower if one warpgroup cannot keep up with
//! four `m64n64k16` per 8 KiB stage.
//!
//! Measured (H100, `results/2026-11-26-h100-session24/call11`, d9 and d16 alternately, two rounds):
//! **1.00–1.02× d9, far below the prediction**: 64×4096×64 5.88 → 5.55 µs, 64×4096² 17.10 → 17.03 µs
//! (78.0–78.3% → 78.4–78.5% of the copy), 32×4096² 79.0% (d9 77.7–78.3%), 17 / 48 × 4096² 78.7–79.4%
//! (78.1–79.2%), 32 / 64 × 4096×14336 94.4–94.7% (92.8–93.6%). With 64 activation rows the exchange is
//! not what d9 pays: at one K tile d16 still takes 5.5 µs where d15 takes 4.5 at M = 16, so the cost
//! follows the tile's 64 rows (the 8 KiB activation box in every stage, 32 stores a thread). Chosen in
//! d9's place for 16 < M ≤ 64 (`gemm::default_step`): never slower at the eight shapes measured.
use super::decode_one_consumer::{OneConsumerTile, decode};
use super::decode_swapped::consume;
use super::decode_whole_k::Rows64;
use super::elem::{Bf16, Elem16, F16};
use super::tma_warp_specialized::Ring;
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;
use layout::hopper::tma_hgemm::D4_STAGES;

/// `C = A · B` (f16) as d15 on 64-row activation tiles.
///
/// # Safety
/// Tensor maps of A (M×K f16, box 64 K × `decode_a_box_rows(m)` rows) and B (K×N f16, box 64 N × 64 K),
/// both `SWIZZLE_128B`; `g_c` of m·n f16; 256 threads, `D16_DYN_SMEM` bytes; a 1-D grid of at most
/// ⌈m/64⌉·⌈n/64⌉ CTAs; launched with or without programmatic stream serialization.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (d15's body on `Rows64`, whose stage and ring are `D16_DYN_SMEM`'s).
    unsafe { decode::<F16, Rows64, true, 0>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// [`hgemm_decode_v16`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v16`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v16_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16, Rows64, true, 0>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// d4's tile with one consumer: a 12-stage ring ([`D4_STAGES`]), d3's K loop on weight box 0.
impl<E: Elem16> OneConsumerTile<E> for Rows64 {
    const STAGES: u32 = D4_STAGES;
    #[inline(always)]
    unsafe fn consume(ring: Ring, it: &mut u32, kts: u32) -> [f32; 32] {
        // SAFETY: forwarded to the caller; one CTA (no cluster), weight box 0, the consumer's 4 warps
        // release each stage (the empty barriers' count).
        unsafe { consume::<E, [f32; 32], 1>(ring, it, kts, 0) }
    }
}

// 256 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v16, 256, 1);
launch_bounds!(hgemm_decode_v16_bf16, 256, 1);
