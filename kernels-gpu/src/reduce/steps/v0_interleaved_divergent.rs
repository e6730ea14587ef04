//! v0 — interleaved addressing with a divergent branch (the seed's baseline).
//!
//! Each block loads `BLOCK` elements into shared memory, then halves them in a tree: at level `s`
//! (1, 2, 4, …) the threads with `tid % (2s) == 0` add `s[tid + s]` into `s[tid]`. Only every `2s`-th
//! thread works, so every warp diverges at every level, and the `%` is expensive.
use super::BLOCK;
use crate::prim::{shared, sync::sync_threads, thread::{block_idx_x, thread_idx_x}};

/// Partial sums: `g_out[b] = Σ g_in[b·BLOCK .. (b+1)·BLOCK) ∩ [0, n)`.
///
/// # Safety
/// Launched with `BLOCK` threads, `BLOCK · 4` bytes of dynamic shared memory and `ceil(n / BLOCK)`
/// blocks; `g_in` has `n` readable f32 and `g_out` one writable f32 per block.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn reduce_v0(g_in: *const f32, g_out: *mut f32, n: u32) {
    let s = shared::dynamic::<f32>();
    let tid = thread_idx_x();
    let i = block_idx_x() * BLOCK + tid;
    // SAFETY: `i < n` guards the global read; `tid, tid + stride < BLOCK` keep shared accesses in the
    // `BLOCK` floats launched; every thread reaches every barrier (the loop bound is uniform).
    unsafe {
        *s.add(tid as usize) = if i < n { *g_in.add(i as usize) } else { 0.0 };
        sync_threads();
        let mut stride = 1;
        while stride < BLOCK {
            if tid % (2 * stride) == 0 {
                *s.add(tid as usize) += *s.add((tid + stride) as usize);
            }
            sync_threads();
            stride *= 2;
        }
        if tid == 0 {
            *g_out.add(block_idx_x() as usize) = *s;
        }
    }
}
