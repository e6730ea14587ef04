//! v1 — interleaved addressing without divergence; bank conflicts instead.
//!
//! Change from v0: the work at level `s` goes to the *first* `BLOCK / 2s` threads, which add at
//! `index = 2·s·tid` (`layout::reduce::interleaved_index`). Whole warps now either work or idle, but
//! lanes of a working warp touch words `2s` apart: `2s` lanes per bank, a `2s`-way bank conflict
//! (seed 003: 2-way at s = 1, 4-way at s = 2, …). Predicted: faster than v0 (no `%`, fewer active warps),
//! still far from bandwidth.
use super::BLOCK;
use crate::prim::{shared, sync::sync_threads, thread::{block_idx_x, thread_idx_x}};
use layout::reduce::interleaved_index;

/// Partial sums, as `reduce_v0`.
///
/// # Safety
/// As `reduce_v0`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn reduce_v1(g_in: *const f32, g_out: *mut f32, n: u32) {
    let s = shared::dynamic::<f32>();
    let tid = thread_idx_x();
    let i = block_idx_x() * BLOCK + tid;
    // SAFETY: as v0; `index + stride < BLOCK` holds whenever `index < BLOCK` (index is a multiple of
    // 2·stride and BLOCK of 2·stride), so shared accesses stay in bounds.
    unsafe {
        *s.add(tid as usize) = if i < n { *g_in.add(i as usize) } else { 0.0 };
        sync_threads();
        let mut stride = 1;
        while stride < BLOCK {
            let index = interleaved_index(tid, stride);
            if index < BLOCK {
                *s.add(index as usize) += *s.add((index + stride) as usize);
            }
            sync_threads();
            stride *= 2;
        }
        if tid == 0 {
            *g_out.add(block_idx_x() as usize) = *s;
        }
    }
}
