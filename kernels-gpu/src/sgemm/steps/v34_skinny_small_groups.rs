//! v34 — v33 in **row groups of 4** (a block computes at most 4 rows of C): only the 1- and 4-row loops
//! are compiled, so a block fits 128 registers and **two blocks run on an SM** where v13 and v33 (whose
//! 16-row loop wants ~240) run one.
//!
//! Why: with one block per SM an SM idles while its block starts, and while the block's 32 groups meet
//! in shared memory and store — a fixed cost paid once per block in series with the streaming. At
//! 4×50257×768 (1571 strips, K = 768: 96 KiB of B a block) v33 ran 0.76× cuBLAS against 1.15× at
//! 8×50257×768 (session 61): the 96 KiB a block streams are not enough to hide it. Two resident
//! blocks overlap one block's tail with another's loads. For more than 4 rows every row group reads B
//! again (from L2), so the rule gives v34 only M ≤ 4.
//!
//! Prediction (before any run, H200): 4×50257×768 0.76 → 0.90–1.05× cuBLAS; M = 1 decode shapes with
//! several waves of strips (1×14336×4096: 448 strips) 0.87 → 0.92–0.98×; 1×4096×4096 (128 strips, one
//! wave) unchanged, 0.97–1.02× v33.
use super::skinny::{Quad, Strided, skinny};
use crate::launch_bounds::launch_bounds;

/// `C = A · B` (row-major) as `sgemm_v33`, in row groups of 4 rows: grid `(⌈N/32⌉, ⌈M/4⌉ · splits)`.
///
/// # Safety
/// As `sgemm_v13` with `⌈M/4⌉` row groups in place of `⌈M/16⌉`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v34(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (`skinny`'s contract with GROUP = 4 is this kernel's).
    unsafe {
        if n % 4 == 0 {
            skinny::<Quad, 4>(a, b, c, m, n, k, k_split)
        } else {
            skinny::<Strided, 4>(a, b, c, m, n, k, k_split)
        }
    }
}

// Two blocks of 256 threads per SM: at most 128 registers a thread (at three, 80, the 4-row loop
// spilled 264 bytes).
launch_bounds!(sgemm_v34, 256, 2);
