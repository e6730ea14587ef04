//! v13 — skinny M (decode, small prefill): each block streams a 32-column strip of B once, all its
//! threads splitting K, for at most 16 rows of C.
//!
//! Change from v12: no 128×128 tile, no shared-memory staging of A and B. A block owns C rows
//! `m0 .. m0+16` and columns `n0 .. n0+32`; its 256 threads are 32 groups × 8 lanes
//! (`layout::sgemm::skinny_thread`): lane l keeps the sums of columns `4l .. 4l+4` for the block's rows
//! (`16 × 4` at most) and group g takes k `4g .. 4g+4` of every 128 (one *pass*). Per pass a thread
//! loads 4 rows × 4 columns of B (four `ld.global.nc.v4`; each B element is read by exactly one
//! thread, once) and for each row one float4 of A (4 consecutive k; the 8 lanes of a group read the
//! same address), then makes `rows × 16` FMAs. At the end the 32 groups' sums meet in shared memory
//! (`skinny_sum_word`, conflict-free) and each warp adds them for two rows (8 conflict-free
//! `ld.shared.v4` and two shuffles per lane). Rows past M read a valid row of A (clamped) and are
//! dropped at the store; the loop is compiled for 1, 4, 8 or 16 rows (`skinny_rows`), so M = 1 makes
//! one row's FMAs. K is split across blocks only when the blocks (row groups × strips)
//! are at most half the SMs (`layout::sgemm::SKINNY_SPLIT`); the splits then add into a zeroed C as v12's do.
//!
//! Why: at M ≤ 64 a 128-row tile computes mostly rows that do not exist (v12 at 64×4096²: 61% of
//! cuBLAS, H100) and at M ≤ 16 the product is a read of B: what counts is bytes of B in flight, not
//! FMAs. Here every SM streams its own strips of B with 32 KiB of loads in flight per block.
//! Predicted (H100, weights beyond L2): M = 1 … 16 at ≥ 85% of the same run's copy bandwidth and
//! ≥ 1.0× cuBLAS; M = 64 (four row groups reading each strip from L2) ≥ 0.9× cuBLAS.
//! Measured (H100, `results/2026-11-23-h100-session10/`, interleaved with cuBLAS, held timing): M = 1,
//! 4, 16 × 4096² at 101%, 244%, 213% of cuBLAS (91%, 88%, 65% of the copy bandwidth: right at M ≤ 4,
//! short at 16); 1–16 × 4096×14336 100–113%, 1–16 × 14336×4096 91–92%; but M = 32 72% and M = 64 51%
//! (v12 also 51%; v14 then took 48 ≤ M), 128–256 × 4096² 45% — the prediction held for decode and failed from M = 32 on,
//! where the row groups re-read B and one block per SM (ptxas wants 240 registers for 16 rows: capped
//! at 128 it spilled 300–800 bytes) leaves 8 warps to hide it.
//!
//! Tried and reverted: at 16 rows a pass loads its B and then computes, one pass in flight (16 KiB of
//! loads per SM), and M = 16 reads B at 65% of the copy bandwidth where M = 4 (two passes in flight)
//! reads at 88%. Loading the next pass's B before this pass's FMAs (226–254 registers, no spill) was
//! predicted to bring M = 16 to ≈ 80–85% of copy and M = 32 from 73% to ≈ 85% of cuBLAS; it made them
//! slower (`call7-v13-pipelined`: 16×4096² 37 → 39 µs, 32×4096² 62 → 70 µs, 16×14336×4096 134 → 146 µs).
//! Two whole passes per iteration at 16 rows put the sums in local memory (464-byte stack frame).
use super::skinny::{Quad, skinny};
use layout::sgemm::SKINNY_ROWS;
use crate::launch_bounds::launch_bounds;

/// `C = A · B` (row-major) for small M, K split into `grid_dim_y / ⌈M/16⌉` ranges of `k_split`; lane
/// `l` of a group owns columns `4l .. 4l + 4` of its strip.
///
/// # Safety
/// 256 threads and `SKINNY_SMEM_BYTES` of dynamic shared memory; `a`, `b`, `c` hold `M·K`, `K·N`,
/// `M·N` f32, 16-byte aligned, A and B not written meanwhile; `M ≥ 1`; grid `(⌈N/32⌉, ⌈M/16⌉ ·
/// splits)` with `splits = ⌈K / k_split⌉`, `k_split` a positive multiple of 128 (or `K` itself when
/// `splits = 1`); when `splits > 1`, C is zero at launch and touched by nothing else.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v13(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (`skinny`'s contract is this kernel's).
    unsafe { skinny::<Quad, SKINNY_ROWS>(a, b, c, m, n, k, k_split) }
}

// One block per SM: ptxas wants 240 registers for the 16-row loop (capped at 128 for two blocks it
// spilled 300-800 bytes).
launch_bounds!(sgemm_v13, 256, 1);
