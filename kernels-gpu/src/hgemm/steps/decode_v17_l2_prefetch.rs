#![cfg(lab_sm90)]
//! Decode step d17 (a measured negative) — d15 with the **weights of the next K tiles prefetched into the L2** ahead of the
//! ring (`cp.async.bulk.prefetch.tensor.2d.L2`): thread 0 asks for K tiles 12 .. 64 right after the
//! first 12 stages, and the producer for K tile `kt + 52` as it issues stage `kt`.
//!
//! Why: d15 reads 1 / 16 × 4096² at 84–85% of a copy of the weights, while from K = 4096 to 14336 it
//! streams at ~3.27 TB/s (the slope), so ~5.6 µs of its 15.35 are not streaming: 4.5 µs are what a
//! one-K-tile launch costs, the other ~1.1 µs are the stream's ramp and its end, where the slowest of
//! the 64 CTAs finishes ~0.3 µs after the average one (`ncu`, d14). Each CTA can have only its ring's
//! 12 stages (96 KiB of weights) in flight, so a CTA that falls behind stays behind. With every weight
//! byte of its tile asked for at the start, DRAM sees all 32 MiB at once and serves the CTAs from one
//! queue; the ring's loads then find their boxes in the L2.
//!
//! Diff from d15: `decode::<_, Rows16, true, D17_AHEAD>` — the body's `AHEAD` (`decode_one_consumer`):
//! 52 prefetches after the first stages, one per later stage. `d17n16`: a window of 16.
//!
//! Prediction (before running): the ramp and the end ~0.2–0.4 µs shorter at 1 / 16 × 4096²:
//! 1.013–1.026× d15 (84.5% → 85.5–86.5% of the copy); at 4096×14336 (112 MiB of weights, beyond the
//! L2) a sliding window of 26 MiB, ±1%. Risk: d13's 22-stage ring streamed slower than its 12-stage
//! one (2.6 against 3.15 TB/s), so more bytes in flight per CTA may cost DRAM efficiency instead.
//!
//! Measured (H100, `results/2026-11-26-h100-session26/call2-d17`, three processes of each, alternating,
//! each step interleaved with cuBLAS and with a copy of the same weights): **much slower** — d17 at
//! 64.3–64.9% of the copy at 1 / 8 / 16 × 4096² (d15 83.7–84.8%), 61.3–62.9% at 1 / 16 × 4096×14336 and
//! 1×8192×28672 (d15 96.3–99.6%); d17n16 68.4–69.3%, 81.5–81.9%, 90.8–91.0%; bf16 as f16. `ncu` at
//! 1×4096²: both read 33.6 MB from DRAM, but d17's DRAM ran at 52% of its peak (d15 67%), 19.9 µs
//! against 15.6, with only 19% of the L2 sectors hits (d15 3%): the ring's loads mostly reach a box
//! before its prefetch has landed and wait behind it, and the flood of requests lowers DRAM's
//! efficiency — d13's deeper ring again. Correct (`--check`, memcheck 0 errors). A measured negative,
//! not chosen: 12 stages in flight per CTA is where this stream is fastest.
use super::decode_one_consumer::{Rows16, decode};
use super::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;
use layout::hopper::tma_hgemm::{D17_AHEAD, D17N16_AHEAD};

/// `C = A · B` (f16) as d15, the weight boxes of the next [`D17_AHEAD`] K tiles prefetched into the L2.
///
/// # Safety
/// As `hgemm_decode_v14` (256 threads, `D14_DYN_SMEM` bytes).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v17(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<F16, Rows16, true, D17_AHEAD>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// [`hgemm_decode_v17`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v17`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v17_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16, Rows16, true, D17_AHEAD>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// [`hgemm_decode_v17`] with a window of [`D17N16_AHEAD`] K tiles.
///
/// # Safety
/// As [`hgemm_decode_v17`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v17_n16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<F16, Rows16, true, D17N16_AHEAD>(tmap_a, tmap_b, g_c, m, n, k) }
}

// 256 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v17, 256, 1);
launch_bounds!(hgemm_decode_v17_bf16, 256, 1);
launch_bounds!(hgemm_decode_v17_n16, 256, 1);
