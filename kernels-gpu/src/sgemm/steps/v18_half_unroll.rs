//! v18 — v17 with each stage's 16 k-steps run as **two 8-step halves** of a loop: half the unrolled
//! body in the instruction stream.
//!
//! Change from v17: `b_ring_tile::<{ StageProducts::Halves }>` — the stage's products go through
//! `wide_k_loop::stage_products_halves` (a loop LLVM cannot unroll back: its trip count passes through
//! `black_box`), whose body is 8 k-steps (512 FFMA, 32 `LDS.128`); the fragment reads of a half's steps
//! add the half's offset at run time instead of an immediate.
//!
//! Why: in `ncu`'s stall samples of v16 at 64×4096² (`results/2026-11-25-h100-session16/call5-ncu-sgemm`)
//! 12.5% are *no instruction*, landing every 48 instructions (768 bytes) through the unrolled stage —
//! the ~19 KB loop body (1024 FFMA + 64 `LDS.128` + the rest) streamed through an instruction cache too
//! small to hold it, at three blocks per SM in lockstep. v17 already showed that removing one stall kind
//! (its long-scoreboard wait) can leave the time unchanged, so this is a test of the fetch hypothesis.
//! Predicted (before running): if the misses bind, 64–256 × 4096² 1.04–1.10× v17; if not, 0.97–1.00×
//! (the run-time fragment offsets and the loop branch cost ~2%).
//! Measured (H100, `kernel-lab ab` 8 rounds, `results/2026-11-25-h100-session16/call9-sgemm-v18`):
//! **0.974× / 0.965× / 0.978× / 0.965× v17** at 64 / 128 / 256 × 4096² and 1000³, 0/8 rounds faster —
//! the second branch of the prediction, a little below it: the instruction fetch was not what bound
//! the loop either. Kept as a measured step (correct, sanitizers 0/0/0); not chosen.
use super::b_ring_loop::{StageProducts, b_ring_tile};
use crate::launch_bounds::launch_bounds;

/// `C = A · B` (row-major) as v17, each stage's products in two 8-step halves.
///
/// # Safety
/// As `sgemm_v17`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v18(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (the loop's proof is in `b_ring_loop`).
    unsafe { b_ring_tile::<{ StageProducts::Halves }>(a, b, c, m, n, k, k_split) }
}

// Three blocks of 128 threads per SM, as v14.
launch_bounds!(sgemm_v18, 128, 3);
