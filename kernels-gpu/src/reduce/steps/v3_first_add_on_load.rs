//! v3 — first add during the global load.
//!
//! Change from v2: in v2 half the threads idle from the first tree level on. Here each block covers
//! `2·BLOCK` elements and every thread adds its two (`i` and `i + BLOCK`, both coalesced) while loading,
//! so half as many blocks do the same tree. Predicted: ~1.7× over v2 (half the blocks' tree work).
use super::BLOCK;
use crate::prim::{shared, sync::sync_threads, thread::{block_idx_x, thread_idx_x}};
use layout::reduce::sequential_index;

/// Partial sums: `g_out[b] = Σ g_in[b·2·BLOCK .. (b+1)·2·BLOCK) ∩ [0, n)`.
///
/// # Safety
/// Launched with `BLOCK` threads, `BLOCK · 4` bytes of dynamic shared memory and
/// `ceil(n / (2·BLOCK))` blocks; `g_in` has `n` readable f32, `g_out` one writable f32 per block,
/// `n <= MAX_N` (so `i + BLOCK` does not overflow).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn reduce_v3(g_in: *const f32, g_out: *mut f32, n: u32) {
    let s = shared::dynamic::<f32>();
    let tid = thread_idx_x();
    let i = block_idx_x() * (2 * BLOCK) + tid;
    // SAFETY: both global reads are guarded by `< n`; shared accesses as v2.
    unsafe {
        let a = if i < n { *g_in.add(i as usize) } else { 0.0 };
        let b = if i + BLOCK < n { *g_in.add((i + BLOCK) as usize) } else { 0.0 };
        *s.add(tid as usize) = a + b;
        sync_threads();
        let mut half = BLOCK / 2;
        while half > 0 {
            if tid < half {
                let index = sequential_index(tid);
                *s.add(index as usize) += *s.add((index + half) as usize);
            }
            sync_threads();
            half /= 2;
        }
        if tid == 0 {
            *g_out.add(block_idx_x() as usize) = *s;
        }
    }
}
