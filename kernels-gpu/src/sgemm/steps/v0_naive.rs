//! v0 — naive: one thread per output of C, 16×16 threads per block, operands straight from global
//! memory. Every output re-reads a row of A and a column of B: `2·M·N·K` global loads, mostly from L1/L2.
use super::elementwise::{fma, store_if};
use crate::prim::thread::{block_idx_x, block_idx_y, thread_idx_x};
use layout::sgemm::NAIVE_TILE;

/// `C = A · B` (row-major).
///
/// # Safety
/// Launched with `NAIVE_TILE²` threads and a grid of `(ceil(N / 16), ceil(M / 16))`; `a`, `b`, `c` hold
/// `M·K`, `K·N`, `M·N` f32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v0(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    let (ty, tx) = (thread_idx_x() / NAIVE_TILE, thread_idx_x() % NAIVE_TILE);
    let row = block_idx_y() * NAIVE_TILE + ty;
    let col = block_idx_x() * NAIVE_TILE + tx;
    if row < m && col < n {
        let mut acc = 0.0f32;
        // SAFETY: row < m, col < n, kk < k index inside A and B.
        unsafe {
            for kk in 0..k {
                acc = fma(*a.add(row as usize * k as usize + kk as usize), *b.add(kk as usize * n as usize + col as usize), acc);
            }
            store_if(c, row, col, m, n, n, acc);
        }
    }
}
