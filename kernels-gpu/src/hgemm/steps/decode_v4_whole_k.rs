#![cfg(lab_sm90)]
//! Decode step d4 — d3 without split-K: each CTA streams the **whole K** of a 64-column strip of the
//! weights, so no partial tile ever goes through global memory.
//!
//! Why: d3 measured *slower* than d2 at every decode shape (0.70–0.76× cuBLAS at 4096², d2
//! 0.92–0.94×; `results/2026-11-23-h100-session9/call2-d3`), and the two share the same tail: partial
//! tiles stored, a fence, a ticket, the last CTA's L2 loads. cuBLAS's kernel at M = 64
//! (`nvjet …64x32_64x16_1x2`) splits nothing: 64-column tiles, 16 stages, whole K.
//!
//! Diff from d3:
//! * **Tile 64 rows × 64 columns** (one weight box per stage: 16 KiB stages, 12 of them = 96 KiB of
//!   weights in flight; an even count, so that every use of a stage belongs to the same warpgroup —
//!   `layout::hopper::tma_hgemm::D4_STAGES` says why), **no split**: `Grid::Persistent` over ⌈m/64⌉·⌈n/64⌉ tiles (64 CTAs at N = 4096).
//! * **The consumer warpgroups take alternate stages** (warpgroup `mh` the running indices of parity
//!   `mh`), each into its own accumulators, so each stage's empty barrier waits for 4 warps, not 8
//!   (`warp_specialized! { empty_arrivals: 4; … }`).
//! * **Epilogue through shared memory**: warpgroup 1 writes its 64×64 f32 to an exchange region laid
//!   out `[element][thread]` (a warp's 32 stores of one element are one conflict-free wavefront), one
//!   named barrier, warpgroup 0 adds them to its own (same fragment places) and writes C as d3 does.
//!
//! Prediction (before running): no tail and a ring as deep as cuBLAS's: 4096² at M = 1–64 in ~14–15 µs,
//! **~1.05–1.1× cuBLAS**, where d3 took 23 µs; level with d2 at the 7B/70B shapes.
//!
//! Measured (H100, held, `results/2026-11-23-h100-session9/call6-d4`, `call7-final`): 64×4096² 82–85%
//! of cuBLAS (d2m64 61–64%, d3 58%), 32×4096² 79%, 64×4096×14336 93% of the copy bandwidth (d2m64 75%);
//! below the prediction, and at M ≤ 16 61–73% (d2 keeps those). With the activation box kept inside
//! M (`call9-box`; out-of-bounds zero fill was slow): 80–89% at M = 1–16, 102–104% at 128×4096², 121%
//! at 128×4096×14336. With the tensor maps no longer re-uploaded inside each timed repetition
//! (`call12-maps`, `call13-final`): 96–105% at M = 1–64 × 4096², 102–103% at 1–16 × 4096×14336 —
//! chosen wherever its tiles fill 40–100% of the SMs (`gemm::d4_fits`).
use super::decode_whole_k::{Rows64, decode};
use super::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;
use layout::hopper::tma_hgemm::D4_STAGES as STAGES;

/// `C = A · B` (f16) with 64×64 tiles, the weights B streamed whole-K by TMA.
///
/// # Safety
/// Tensor maps of A (M×K f16, box 64 K × 64 rows) and B (K×N f16, box 64 N × 64 K), both
/// `SWIZZLE_128B`; `g_c` of m·n f16; 384 threads, `D4_DYN_SMEM` bytes; a 1-D grid of at most
/// ⌈m/64⌉·⌈n/64⌉ CTAs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v4(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<F16, Rows64, false, STAGES>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// [`hgemm_decode_v4`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v4`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v4_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16, Rows64, false, STAGES>(tmap_a, tmap_b, g_c, m, n, k) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v4, 384, 1);
launch_bounds!(hgemm_decode_v4_bf16, 384, 1);
