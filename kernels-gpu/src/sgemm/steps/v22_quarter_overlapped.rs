#![cfg(lab_sm90)]
//! v22 — v15 (32×128 tiles, 64 threads, six blocks per SM) with **v21's overlapped zeroing**: the
//! split-K adds wait (`Epi::WAIT_ADD`) for the grid that zeroes C, which the host launches just before
//! and which lets this grid start at once (`sgemm_zero_before_dependent`); one split waits at the start.
//!
//! Why: v15 is the entry point's step at 17–32 rows and where v14 starves (512³), the shortest split
//! launches of the f32 sweep — 512³ in 20 µs at 76.8% of cuBLAS, 32×4096² in 53 µs at 84.8% (session
//! 19, `call12-f32-final`) — so the memset before them, and the launch gap after it, weigh the most.
//!
//! Prediction (before running): 1.5–3 µs less per launch — 512³ (4 splits of 128) 1.08–1.15× v15
//! (≈ 83–88% of cuBLAS), 32×4096² (24 splits of 176) 1.03–1.06× (≈ 87–90%).
//!
//! Measured (H100, `ab`, `results/2026-11-25-h100-session20/call1-v21-v22-overlapped-zeroing`): **512³ 1.086×, 32×4096² 1.030×,
//! 384³ 1.112×, 24×2048×1024 1.088×** (8/8 rounds each); 300×300×200 1.000× (no split). In the sweep
//! 512³ 76.8 → 79.4% and 32×4096² 84.8 → 87.7% of cuBLAS: right in direction, at the low end in size.
use super::wide_k_loop::{Epi, LoopSelect, split_k_tile};
use crate::launch_bounds::launch_bounds;
use layout::sgemm::V15_ROWS as ROWS;

/// `C = A · B` (row-major) as v15, its split-K adds behind `griddepcontrol.wait`.
///
/// # Safety
/// As `sgemm_v15`, with C zeroed as `sgemm_v21` says (by the previous grid, when K is split).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v22(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (split_k_tile's contract for ROWS = 32 with WAIT_ADD, as v15).
    unsafe { split_k_tile::<ROWS, 10, { LoopSelect::PerTile }, { Epi::WAIT_ADD }>(a, b, c, m, n, k, k_split) }
}

// Six blocks of 64 threads per SM, as v15.
launch_bounds!(sgemm_v22, 64, 6);
