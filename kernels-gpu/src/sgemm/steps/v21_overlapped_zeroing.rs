#![cfg(lab_sm90)]
//! v21 — v19 with **C zeroed by a grid the GEMM overlaps** (programmatic dependent launch, sm_90a).
//!
//! Change from v19: the split-K epilogue is `Epi::WAIT_ADD` — `griddepcontrol.wait`, then the same
//! `red.global.add.f32` adds. On the host, C is zeroed not by a driver memset but by
//! `sgemm_zero_before_dependent` (`sgemm/zero_before_dependent.rs`), whose first instruction lets this
//! grid be dispatched; the runtime launches v21 with programmatic stream serialization because its
//! PTX executes `griddepcontrol.wait`. So v21's blocks start while C is being zeroed, run their whole
//! K range, and wait for the zeroing grid only before the first add — by then it has long finished.
//! With one split there is no zeroing grid: the kernel waits at its start instead (whatever grid came
//! before may have written A, B or C), and runs as v19.
//!
//! Why: with K split, every v12–v19 launch is two operations on the stream, a memset of C and the
//! kernel, the kernel's launch following the memset's completion. At 1024³ v16 with three splits ran
//! 85.8% of cuBLAS against 93.9% unsplit (session 17, `call3-race-split`: ~5.8 µs), while `ncu` gave the
//! atomic adds themselves no cost (session 19, `call8`: 8 and 12 splits of 64×4096², 73 µs alike); the
//! shapes still under 85% that split are short launches (512³ 20 µs, 32–128 × 4096² 53–115 µs), where
//! a few µs of zeroing, drain and launch gap weigh 2–15%.
//!
//! Prediction (before running; held time, one launch after the hold as the suite times it): 1.5–3 µs
//! less per split launch — 64×4096² (12 splits) 1.02–1.04× v19, 128×4096² 1.01–1.03×; unsplit shapes
//! (1000³, 1024³, 127×8191×1024) 0.99–1.01× (v19 behind a wait that returns at once).
//!
//! Measured (H100, `kernel-lab ab`, 8 rounds; `results/2026-11-25-h100-session20/call1-v21-v22-overlapped-zeroing`):
//! **64×4096² 1.020×, 128×4096² 1.019×, 48×4096² 1.017×, 768³ 1.064×** (8/8 rounds each); 256×4096²
//! 0.995×; unsplit 1000³ 1.003×, 1024³ 0.997×, 127×8191×1024 0.999×. The prediction held at its low
//! end; v21 moved 64 and 128 × 4096² from 83.9 / 84.4% to 85.4 / 85.5% of cuBLAS in the f32 sweep.
//! What it left: v24.
use super::wide_k_loop::{Epi, LoopSelect, split_k_tile};
use crate::launch_bounds::launch_bounds;
use layout::sgemm::V14_ROWS as ROWS;

/// `C = A · B` (row-major) as v19, its split-K adds behind `griddepcontrol.wait`.
///
/// # Safety
/// As `sgemm_v14`, except that with several K splits C need not be zero at launch: the grid launched
/// just before this one on the stream (with programmatic stream serialization) zeroes C and writes
/// nothing this grid reads (`sgemm_zero_before_dependent`); with one split, any previous grid.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v21(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (split_k_tile's contract for ROWS = 64 with WAIT_ADD, as v19).
    unsafe { split_k_tile::<ROWS, 6, { LoopSelect::PerLaunch }, { Epi::WAIT_ADD }>(a, b, c, m, n, k, k_split) }
}

// Three blocks of 128 threads per SM, as v19.
launch_bounds!(sgemm_v21, 128, 3);
