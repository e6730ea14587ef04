#![cfg(lab_sm90)]
//! Decode step d3 — small M (≤ 64) on Hopper: h7's warp-specialized TMA ring and persistent split-K,
//! with the GEMM **computed transposed** (`Cᵀ = Bᵀ · Aᵀ`) so that the weights, not the few activation
//! rows, fill `wgmma`'s 64-row M side.
//!
//! Why: with held timing (GPU time, not host launch latency) d2 ran at 92–94% of cuBLAS at M = 1–16
//! on 4096² weights and d2m64 at 61% at M = 64 (`results/2026-11-23-h100-session9/call1-held-timing`).
//! `ncu` there: cuBLAS's `nvjet …128x16_64x11…splitK` streams the weights through an 11-stage TMA ring
//! (176 KiB in flight per CTA); d2's `cp.async` ring keeps 24 KiB in flight per block, and d2m64
//! re-reads the A tile from shared memory with `ldmatrix` in every warp.
//!
//! What changes from h7:
//! * **Operands swapped.** A stage holds the activation box (room for 64 rows × 64 K, K-major; the box
//!   never reaches past M: `layout::hopper::tma_hgemm::decode_a_box_rows`/`_row0`, after zero-filled
//!   out-of-bounds rows measured slow) and two weight boxes (64 K × 64 columns each, as h's B
//!   boxes). Consumer warpgroup `mh` issues `wgmma.m64n64k16` with A = weight box `mh` read
//!   **MN-major** (`TA = 1`: the row-major K×N weights are already the transposed operand's layout)
//!   and B = the activation box, K-major (`TB = 0`). Its accumulator is `Cᵀ`: fragment row = column
//!   of C, fragment column = row of C.
//! * **Tile 64 rows × 128 columns, 9 stages of 24 KiB** (`layout::hopper::tma_hgemm::D3_*`): 144 KiB
//!   of weights in flight per CTA, and `persistent_splits` over these tiles gives 128 CTAs at N = 4096
//!   (32 tiles × 4 splits).
//! * **Epilogue transposed**: a thread's accumulator pair is two adjacent rows of C in one column, so
//!   C is written with 16-bit stores; the partials of a split go to a workspace laid out `[split][col][row]`
//!   (rows adjacent), only rows < M, and the tile's last CTA sums them as h7 does.
//!
//! Prediction (before running): 4096² weights at M = 1–64 in ~14 µs (cuBLAS 15.5–16.5 µs in `ncu`):
//! **~1.1× cuBLAS** and ≥ 85% of the copy bandwidth at M ≤ 16; M = 64 from d2m64's 61% to ~1.1×;
//! the 7B/70B decode shapes level with d2 (both near the copy bandwidth).
//!
//! Measured (H100, held timing, `results/2026-11-23-h100-session9/call2-d3`, `call4-configs`): wrong
//! for decode — 19.0 µs at 16×4096² (`ncu`; cuBLAS 15.6, d2 17.2), 70–76% of cuBLAS at M = 1–16 and
//! 58–66% at 32–64 on 4096². Right above the decode range, where its 64×128 tiles need no split: 256×4096²
//! 93%, 512×4096² 74%, 1024³ 86%, 256×4096×14336 111%, 128×14336×4096 96% — ahead of h6/h8 there, so the
//! entry point chose it (`gemm::d7_fits`) until d7 (its C by TMA stores) replaced it.
//!
//! Then one `wgmma` group kept in flight (`wait_group 1`, as h4): predicted +10–15% at 1024³ (the MMAs
//! of a stage overlapping the next stage's wait); measured no change (`call16-d3-wait1`: 1024³ 81.2%
//! against 81.3%) — at 1024³ the K loop is not what separates d3 (9.7 µs) from cuBLAS (8 µs).
use super::decode_swapped::decode;
use super::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;

/// `C = A · B` (f16; M ≤ 64 rows per tile) with the weights B streamed by TMA, K split across CTAs.
///
/// # Safety
/// Tensor maps of A (M×K f16, box 64 K × 64 rows) and B (K×N f16, box 64 N × 64 K), both
/// `SWIZZLE_128B`; `g_c` of m·n f16, n even; 384 threads, `D3_DYN_SMEM` bytes; a 1-D grid of at most
/// `tiles · splits` CTAs (tiles = ⌈m/64⌉·⌈n/128⌉), `1 <= splits <= 16`; when `splits > 1`, `ws` holds
/// `splits · 128⌈n/128⌉ · 64⌈m/64⌉` f32 and `count` `tiles` u32 that are zero at launch (the kernel leaves
/// them zero), neither used by a concurrent launch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v3(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, ws: *mut f32, count: *mut u32,
                                                  m: u32, n: u32, k: u32, splits: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<F16, 1, false>(tmap_a, tmap_b, core::ptr::null(), g_c, ws, count, m, n, k, splits) }
}

/// [`hgemm_decode_v3`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v3`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v3_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, ws: *mut f32, count: *mut u32,
                                                       m: u32, n: u32, k: u32, splits: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16, 1, false>(tmap_a, tmap_b, core::ptr::null(), g_c, ws, count, m, n, k, splits) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v3, 384, 1);
launch_bounds!(hgemm_decode_v3_bf16, 384, 1);
